/** SQLite version 4: a cancel's sentence is sealed; a handoff carries its checkpoint's key version. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 4,
  name: 'handoffs keep only the cancel code in clear (the sentence sealed) and carry the checkpoint key version',
  sql: `
      ALTER TABLE handoffs ADD COLUMN sealed_reason TEXT;
      ALTER TABLE handoffs DROP COLUMN cancel_message;
      ALTER TABLE handoffs ADD COLUMN key_version INTEGER;
    `,
};
