/** What the request pipeline keeps of requests, in SQLite: idempotency answers and request nonces. */
import type Database from 'better-sqlite3';
import type { IdempotencyRecord, RequestRecordStore } from '../store.ts';
import type { Mutator } from './mutator.ts';

/** How long an idempotency answer is kept. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Idempotency answers and nonces. Nonces live in their own database (`nonceDb`, synchronous
 * NORMAL: it survives a process crash, and a nonce only matters for the five-minute skew window).
 */
export function sqliteRequestRecordStore(db: Database.Database, nonceDb: Database.Database, mutate: Mutator): RequestRecordStore {
  nonceDb.exec(
    'CREATE TABLE IF NOT EXISTS nonces (device_id TEXT NOT NULL, nonce TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (device_id, nonce)) WITHOUT ROWID',
  );
  nonceDb.exec('CREATE INDEX IF NOT EXISTS nonces_by_expiry ON nonces(expires_at)');
  const q = {
    findIdem: db.prepare('SELECT request_digest, status, body FROM idempotency WHERE device_id = ? AND key = ?'),
    saveIdem: db.prepare(
      'INSERT OR IGNORE INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    pruneIdem: db.prepare('DELETE FROM idempotency WHERE created_at < ?'),
    useNonce: nonceDb.prepare('INSERT OR IGNORE INTO nonces (device_id, nonce, expires_at) VALUES (?, ?, ?)'),
    pruneNonces: nonceDb.prepare('DELETE FROM nonces WHERE expires_at < ?'),
  };
  return {
    async findIdempotent(deviceId, key) {
      const row = q.findIdem.get(deviceId, key) as { request_digest: string; status: number; body: string } | undefined;
      return row && { deviceId, key, requestDigest: row.request_digest, status: row.status, body: JSON.parse(row.body) as unknown };
    },
    async saveIdempotent(r: IdempotencyRecord, at: number) {
      const saved = await mutate(undefined, () => q.saveIdem.run(r.deviceId, r.key, r.requestDigest, r.status, JSON.stringify(r.body), at));
      if (!saved.ok) throw new Error(saved.message);
    },
    async useNonce(deviceId, nonce, expiresAt) {
      return q.useNonce.run(deviceId, nonce, expiresAt).changes === 1;
    },
    async prune(now) {
      q.pruneNonces.run(now);
      q.pruneIdem.run(now - IDEMPOTENCY_TTL_MS);
    },
  };
}
