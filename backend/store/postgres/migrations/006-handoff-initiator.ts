/** PostgreSQL version 6: a handoff says which device asked for the move (as SQLite version 7). */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 6,
  name: 'handoffs say which device asked for the move (as SQLite version 7)',
  sql: `ALTER TABLE handoffs ADD COLUMN initiator_device_id TEXT;`,
};
