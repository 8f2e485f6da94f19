/** SQLite version 7: a handoff says which device asked for the move. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 7,
  name: 'handoffs say which device asked for the move (the source, or the target with Move here)',
  sql: `ALTER TABLE handoffs ADD COLUMN initiator_device_id TEXT;`,
};
