/**
 * What collection takes from the PostgreSQL store (the same rules as sqlite/retention.ts; naming and
 * releasing are in handoffs.ts). Several instances may collect on one database: each batch
 * is one transaction that first takes a transaction-level advisory lock, so one instance collects at
 * a time and the others find it busy. The delete re-checks its condition on the row it deletes: a
 * transition naming the body at the same moment updates that row (held once more), and PostgreSQL
 * then tests the newer row, which is held, and leaves it; or the delete went first, and the
 * transition finds no record and is refused. Pruning the posts of sessions' logs needs no lock: two
 * instances deleting the same posts delete them once.
 */
import type pg from 'pg';
import type { RetentionStore } from '../store.ts';
import { row, rows, type PgMutator } from './tx.ts';

/** The advisory lock key of a collection batch ("bat-gc" in ASCII). */
export const COLLECTION_LOCK_KEY = 0x6261_742d_6763;

/** Whether this transaction holds the collection lock (taken until it ends), or another instance collects. */
export async function collectionLock(sql: Pick<pg.PoolClient, 'query'>): Promise<boolean> {
  return (await row<{ locked: boolean }>(sql, 'SELECT pg_try_advisory_xact_lock($1) AS locked', [COLLECTION_LOCK_KEY]))!.locked;
}

const COLLECT = `WITH doomed AS (
    DELETE FROM blobs b
    WHERE (b.account_id, b.digest) IN (SELECT account_id, digest FROM blobs WHERE holds = 0 AND (named > 0 OR created_at < $1) LIMIT $2)
      AND b.holds = 0 AND (b.named > 0 OR b.created_at < $1)
    RETURNING b.digest),
  queued AS (INSERT INTO blob_garbage (digest, due_at) SELECT DISTINCT digest, $3::bigint FROM doomed ON CONFLICT (digest) DO NOTHING)
  SELECT count(*)::int AS n FROM doomed`;

/** Collection's part of the PostgreSQL store. */
export function postgresRetentionStore(pool: pg.Pool, mutate: PgMutator): RetentionStore {
  return {
    async collectBlobRecords({ unnamedBefore, limit, at }) {
      const result = await mutate(undefined, async (sql) =>
        (await collectionLock(sql)) ? (await row<{ n: number }>(sql, COLLECT, [unnamedBefore, limit, at]))!.n : ('busy' as const),
      );
      if (!result.ok) throw new Error(result.message);
      return result.value;
    },
    async prunePosts({ keptAfter, expiredBefore, limit }) {
      const pruned = await pool.query(
        `WITH doomed AS (
           SELECT a.account_id, a.session_id, a.seq FROM session_answers a
           JOIN sessions s ON s.account_id = a.account_id AND s.id = a.session_id
           WHERE a.created_at < $1 AND (a.created_at < $2 OR a.generation < s.generation OR a.seq <= s.answers_taken) LIMIT $3)
         DELETE FROM session_answers a USING doomed d WHERE a.account_id = d.account_id AND a.session_id = d.session_id AND a.seq = d.seq`,
        [keptAfter, expiredBefore, limit],
      );
      return pruned.rowCount ?? 0;
    },
    async unrecordedDigests(digests) {
      const found = await rows<{ digest: string }>(
        pool,
        'SELECT d AS digest FROM unnest($1::text[]) d WHERE NOT EXISTS (SELECT 1 FROM blobs WHERE digest = d)',
        [digests],
      );
      return found.map((r) => r.digest);
    },
    async queueBodies(digests, at) {
      await pool.query('INSERT INTO blob_garbage (digest, due_at) SELECT d, $2 FROM unnest($1::text[]) d ON CONFLICT (digest) DO NOTHING', [
        digests,
        at,
      ]);
    },
    async dueBodies(now, limit) {
      const due = await rows<{ digest: string }>(pool, 'SELECT digest FROM blob_garbage WHERE due_at <= $1 ORDER BY due_at LIMIT $2', [
        now,
        limit,
      ]);
      return due.map((r) => r.digest);
    },
    async settleBodies(taken, settled, later) {
      const done = new Set(settled);
      await pool.query(
        'WITH settled AS (DELETE FROM blob_garbage WHERE digest = ANY($1::text[])) UPDATE blob_garbage SET due_at = $3 WHERE digest = ANY($2::text[])',
        [settled, taken.filter((digest) => !done.has(digest)), later],
      );
    },
  };
}
