/** SQLite version 8: a handoff carries the commits the source was at, sealed. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 8,
  name: 'handoffs carry the commits the source was at, sealed (the target fetches just those)',
  sql: `ALTER TABLE handoffs ADD COLUMN sealed_commits TEXT;`,
};
