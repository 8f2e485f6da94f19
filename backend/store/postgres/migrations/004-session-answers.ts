/** PostgreSQL version 4: devices' sealed answers to a session's permission requests (as SQLite version 5). */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 4,
  name: "devices' sealed answers to a session's permission requests",
  sql: `
      CREATE TABLE session_answers (
        account_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        device_id TEXT NOT NULL,
        sealed_body TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, session_id, seq),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions(account_id, id)
      );
    `,
};
