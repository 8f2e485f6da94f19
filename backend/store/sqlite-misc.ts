/** Blob records, memory items, idempotency answers and request nonces in SQLite. */
import type Database from 'better-sqlite3';
import type { BlobRecord, IdempotencyRecord, MemoryRecord, MiscStore } from './store.ts';
import { refuse, type Mutator } from './sqlite-rows.ts';

/** How long an idempotency answer is kept. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The remaining parts of the SQLite store. Nonces live in their own database (`nonceDb`, synchronous
 * NORMAL: it survives a process crash, and a nonce only matters for the five-minute skew window).
 */
export function sqliteMiscStore(db: Database.Database, nonceDb: Database.Database, mutate: Mutator): MiscStore {
  nonceDb.exec(
    'CREATE TABLE IF NOT EXISTS nonces (device_id TEXT NOT NULL, nonce TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (device_id, nonce)) WITHOUT ROWID',
  );
  nonceDb.exec('CREATE INDEX IF NOT EXISTS nonces_by_expiry ON nonces(expires_at)');
  const q = {
    putBlob: db.prepare('INSERT OR IGNORE INTO blobs (account_id, digest, size, created_at) VALUES (?, ?, ?, ?)'),
    blob: db.prepare(
      'SELECT account_id AS accountId, digest, size, created_at AS createdAt FROM blobs WHERE account_id = ? AND digest = ?',
    ),
    memory: db.prepare(
      `SELECT id, topic, device_id AS deviceId, sealed_body AS sealedBody, created_at AS createdAt FROM memory_items
       WHERE account_id = ? AND id = ?`,
    ),
    memories: db.prepare(`SELECT id, topic, device_id AS deviceId, sealed_body AS sealedBody, created_at AS createdAt FROM memory_items
      WHERE account_id = ? AND topic = ? ORDER BY created_at, rowid`),
    putMemory: db.prepare('INSERT INTO memory_items (id, account_id, topic, device_id, sealed_body, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    findIdem: db.prepare('SELECT request_digest, status, body FROM idempotency WHERE device_id = ? AND key = ?'),
    saveIdem: db.prepare(
      'INSERT OR IGNORE INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    pruneIdem: db.prepare('DELETE FROM idempotency WHERE created_at < ?'),
    useNonce: nonceDb.prepare('INSERT OR IGNORE INTO nonces (device_id, nonce, expires_at) VALUES (?, ?, ?)'),
    pruneNonces: nonceDb.prepare('DELETE FROM nonces WHERE expires_at < ?'),
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
    async putMemory(item, idem) {
      return mutate(idem, () => {
        if (q.memory.get(item.accountId, item.id)) refuse('already_exists', 'this account already has a memory item with this id');
        q.putMemory.run(item.id, item.accountId, item.topic, item.deviceId, item.sealedBody, item.createdAt);
        return q.memory.get(item.accountId, item.id) as MemoryRecord;
      });
    },
    async listMemory(accountId, topic) {
      return q.memories.all(accountId, topic) as MemoryRecord[];
    },
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
