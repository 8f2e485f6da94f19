/** The account's sealed memory items in PostgreSQL (the same rules as sqlite/memory-items.ts). */
import type pg from 'pg';
import type { MemoryItemStore, MemoryRecord } from '../store.ts';
import { refuse } from '../rows.ts';
import { row, rows, type PgMutator } from './tx.ts';

const MEMORY_COLUMNS = 'id, topic, device_id AS "deviceId", sealed_body AS "sealedBody", created_at AS "createdAt"';

/** Memory items: an id is used once per account; a topic lists its items oldest first. */
export function postgresMemoryItemStore(pool: pg.Pool, mutate: PgMutator): MemoryItemStore {
  return {
    putMemory(item, idem) {
      return mutate(idem, async (sql) => {
        if (await row(sql, 'SELECT 1 FROM memory_items WHERE account_id = $1 AND id = $2', [item.accountId, item.id]))
          refuse('already_exists', 'this account already has a memory item with this id');
        const added = await row<MemoryRecord>(
          sql,
          `INSERT INTO memory_items (id, account_id, topic, device_id, sealed_body, created_at) VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING ${MEMORY_COLUMNS}`,
          [item.id, item.accountId, item.topic, item.deviceId, item.sealedBody, item.createdAt],
        );
        return added!;
      });
    },
    listMemory(accountId, topic) {
      return rows<MemoryRecord>(
        pool,
        `SELECT ${MEMORY_COLUMNS} FROM memory_items WHERE account_id = $1 AND topic = $2 ORDER BY created_at, seq`,
        [accountId, topic],
      );
    },
  };
}
