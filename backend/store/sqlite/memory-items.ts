/** The account's sealed memory items in SQLite. */
import type Database from 'better-sqlite3';
import type { MemoryItemStore, MemoryRecord } from '../store.ts';
import { refuse } from '../rows.ts';
import type { Mutator } from './mutator.ts';

/** Memory items: an id is used once per account; a topic lists its items oldest first. */
export function sqliteMemoryItemStore(db: Database.Database, mutate: Mutator): MemoryItemStore {
  const q = {
    memory: db.prepare(
      `SELECT id, topic, device_id AS deviceId, sealed_body AS sealedBody, created_at AS createdAt FROM memory_items
       WHERE account_id = ? AND id = ?`,
    ),
    memories: db.prepare(`SELECT id, topic, device_id AS deviceId, sealed_body AS sealedBody, created_at AS createdAt FROM memory_items
      WHERE account_id = ? AND topic = ? ORDER BY created_at, rowid`),
    putMemory: db.prepare('INSERT INTO memory_items (id, account_id, topic, device_id, sealed_body, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
  };
  return {
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
  };
}
