/** SQLite version 2: a device keeps the statement that enrolled it. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 2,
  name: 'device enrollment statements (opaque, signed by the approving device)',
  sql: 'ALTER TABLE devices ADD COLUMN enrollment TEXT;',
};
