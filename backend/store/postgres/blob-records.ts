/**
 * The records of the account's blobs in PostgreSQL (the same rules as sqlite/blob-records.ts). A record
 * is put in the same statement that refreshes its body's time (`blob_bodies.put_at`): the body's row is
 * updated, so a removal of that body at the same moment either went first (no row: the put is refused,
 * and the device uploads again) or sees it freshly put and leaves it (postgres-blobs.ts).
 */
import type pg from 'pg';
import type { BlobRecord, BlobRecordStore } from '../store.ts';
import { row } from './tx.ts';

const COLUMNS = 'account_id AS "accountId", digest, size, created_at AS "createdAt"';

/** Blob records: kept once per (account, digest), the first record standing; a second put refreshes its time. */
export function postgresBlobRecordStore(pool: pg.Pool): BlobRecordStore {
  return {
    async putBlob(record) {
      const kept = await row<BlobRecord>(
        pool,
        `WITH body AS (UPDATE blob_bodies SET put_at = greatest(put_at, $4) WHERE digest = $2 RETURNING digest),
         added AS (INSERT INTO blobs (account_id, digest, size, created_at) SELECT $1, digest, $3, $4 FROM body
           ON CONFLICT (account_id, digest) DO UPDATE SET created_at = greatest(blobs.created_at, excluded.created_at) RETURNING *)
         SELECT ${COLUMNS} FROM added`,
        [record.accountId, record.digest, record.size, record.createdAt],
      );
      if (!kept) throw new Error(`the body of blob ${record.digest} was removed as it was recorded: upload it again`);
      return kept;
    },
    getBlob(accountId, digest) {
      return row<BlobRecord>(pool, `SELECT ${COLUMNS} FROM blobs WHERE account_id = $1 AND digest = $2`, [accountId, digest]);
    },
    async dropUnnamedBlob({ accountId, digest, createdAt, at }) {
      const dropped = await row<{ n: number }>(
        pool,
        `WITH dropped AS (DELETE FROM blobs WHERE account_id = $1 AND digest = $2 AND created_at = $3 AND named = 0 AND holds = 0
           RETURNING digest),
         queued AS (INSERT INTO blob_garbage (digest, due_at) SELECT digest, $4 FROM dropped
           ON CONFLICT (digest) DO UPDATE SET due_at = least(blob_garbage.due_at, excluded.due_at))
         SELECT count(*)::int AS n FROM dropped`,
        [accountId, digest, createdAt, at],
      );
      return dropped!.n > 0;
    },
  };
}
