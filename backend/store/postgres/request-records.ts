/** What the request pipeline keeps of requests, in PostgreSQL: idempotency answers and request nonces (the same rules as sqlite/request-records.ts). */
import type pg from 'pg';
import type { RequestRecordStore } from '../store.ts';
import { prepared, row } from './tx.ts';

/** How long an idempotency answer is kept. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

interface NonceUse {
  deviceId: string;
  nonce: string;
  expiresAt: number;
  spent: (fresh: boolean) => void;
  failed: (error: unknown) => void;
}

/**
 * Spends nonces the way the SQLite store groups its writes: every nonce asked for in one turn of the
 * event loop goes in one INSERT. A nonce is fresh when this insert added it; the second of two equal
 * ones in a batch is not.
 */
function nonceBatcher(quick: pg.Pool): (deviceId: string, nonce: string, expiresAt: number) => Promise<boolean> {
  let batch: NonceUse[] = [];
  const flush = async () => {
    const uses = batch;
    batch = [];
    try {
      const added = await quick.query<{ device_id: string; nonce: string }>(
        prepared(
          `INSERT INTO nonces (device_id, nonce, expires_at) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
           ON CONFLICT DO NOTHING RETURNING device_id, nonce`,
          [uses.map((u) => u.deviceId), uses.map((u) => u.nonce), uses.map((u) => u.expiresAt)],
        ),
      );
      const fresh = new Set(added.rows.map((r) => `${r.device_id} ${r.nonce}`));
      for (const use of uses) {
        const key = `${use.deviceId} ${use.nonce}`;
        use.spent(fresh.delete(key));
      }
    } catch (error) {
      for (const use of uses) use.failed(error);
    }
  };
  return (deviceId, nonce, expiresAt) =>
    new Promise((spent, failed) => {
      if (batch.length === 0) setImmediate(() => void flush());
      batch.push({ deviceId, nonce, expiresAt, spent, failed });
    });
}

/**
 * Idempotency answers and nonces. Nonces go through `quick`, a pool that commits without waiting
 * for the WAL flush (as SQLite's nonce database runs at synchronous NORMAL): a nonce only matters
 * for the five-minute skew window, and every instance sees it as soon as it commits.
 */
export function postgresRequestRecordStore(pool: pg.Pool, quick: pg.Pool): RequestRecordStore {
  return {
    async findIdempotent(deviceId, key) {
      const found = await row<{ request_digest: string; status: number; body: string }>(
        pool,
        'SELECT request_digest, status, body FROM idempotency WHERE device_id = $1 AND key = $2',
        [deviceId, key],
      );
      return found && { deviceId, key, requestDigest: found.request_digest, status: found.status, body: JSON.parse(found.body) as unknown };
    },
    async saveIdempotent(r, at) {
      await pool.query(
        `INSERT INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING`,
        [r.deviceId, r.key, r.requestDigest, r.status, JSON.stringify(r.body), at],
      );
    },
    useNonce: nonceBatcher(quick),
    async prune(now) {
      await quick.query('DELETE FROM nonces WHERE expires_at < $1', [now]);
      await pool.query('DELETE FROM idempotency WHERE created_at < $1', [now - IDEMPOTENCY_TTL_MS]);
    },
  };
}
