/** The records of the account's blobs in SQLite (the bodies are in the blob store). */
import type Database from 'better-sqlite3';
import type { BlobRecord, BlobRecordStore } from '../store.ts';
import type { Mutator } from './mutator.ts';

/** Blob records: kept once per (account, digest), the first record standing; a second put refreshes its time. */
export function sqliteBlobRecordStore(db: Database.Database, mutate: Mutator): BlobRecordStore {
  const q = {
    putBlob: db.prepare(
      `INSERT INTO blobs (account_id, digest, size, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, digest) DO UPDATE SET created_at = max(created_at, excluded.created_at)`,
    ),
    dropUnnamed: db.prepare('DELETE FROM blobs WHERE account_id = ? AND digest = ? AND created_at = ? AND named = 0 AND holds = 0'),
    queue: db.prepare(
      'INSERT INTO blob_garbage (digest, due_at) VALUES (?, ?) ON CONFLICT (digest) DO UPDATE SET due_at = min(due_at, excluded.due_at)',
    ),
    blob: db.prepare(
      'SELECT account_id AS accountId, digest, size, created_at AS createdAt FROM blobs WHERE account_id = ? AND digest = ?',
    ),
  };
  return {
    async putBlob(record) {
      const result = await mutate(undefined, () => {
        q.putBlob.run(record.accountId, record.digest, record.size, record.createdAt);
        return q.blob.get(record.accountId, record.digest) as BlobRecord;
      });
      if (!result.ok) throw new Error(result.message);
      return result.value;
    },
    async getBlob(accountId, digest) {
      return q.blob.get(accountId, digest) as BlobRecord | undefined;
    },
    async dropUnnamedBlob({ accountId, digest, createdAt, at }) {
      const result = await mutate(undefined, () => {
        if (q.dropUnnamed.run(accountId, digest, createdAt).changes === 0) return false;
        q.queue.run(digest, at);
        return true;
      });
      if (!result.ok) throw new Error(result.message);
      return result.value;
    },
  };
}
