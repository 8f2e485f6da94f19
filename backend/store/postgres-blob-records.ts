/** The records of the account's blobs in PostgreSQL (the same rules as sqlite-blob-records.ts). */
import type pg from 'pg';
import type { BlobRecord, BlobRecordStore } from './store.ts';
import { row } from './postgres-tx.ts';

/** Blob records: kept once per (account, digest), the first record standing. */
export function postgresBlobRecordStore(pool: pg.Pool): BlobRecordStore {
  return {
    async putBlob(record) {
      const kept = await row<BlobRecord>(
        pool,
        `WITH added AS (INSERT INTO blobs (account_id, digest, size, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING *)
         SELECT account_id AS "accountId", digest, size, created_at AS "createdAt" FROM added
         UNION ALL SELECT account_id, digest, size, created_at FROM blobs WHERE account_id = $1 AND digest = $2`,
        [record.accountId, record.digest, record.size, record.createdAt],
      );
      return kept!;
    },
    getBlob(accountId, digest) {
      return row<BlobRecord>(
        pool,
        'SELECT account_id AS "accountId", digest, size, created_at AS "createdAt" FROM blobs WHERE account_id = $1 AND digest = $2',
        [accountId, digest],
      );
    },
  };
}
