/** PostgreSQL version 2: the push log is replayed by account, and names itself and the horizon it was pruned below. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 2,
  name: 'push log replay: by account, with its name and the horizon below which it was pruned',
  sql: `
      CREATE INDEX push_log_by_account ON push_log(account_id, id);
      -- One row: the log's name (devices' stream cursors name it) and ids at or below "below" may have been pruned.
      CREATE TABLE push_log_horizon (
        log_id TEXT NOT NULL,
        below BIGINT NOT NULL
      );
      INSERT INTO push_log_horizon (log_id, below) SELECT gen_random_uuid()::text, coalesce(max(id), 0) FROM push_log;
    `,
};
