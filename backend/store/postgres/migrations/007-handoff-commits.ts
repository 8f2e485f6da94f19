/** PostgreSQL version 7: a handoff carries the commits the source was at, sealed (as SQLite version 8). */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 7,
  name: 'handoffs carry the commits the source was at, sealed (as SQLite version 8)',
  sql: `ALTER TABLE handoffs ADD COLUMN sealed_commits TEXT;`,
};
