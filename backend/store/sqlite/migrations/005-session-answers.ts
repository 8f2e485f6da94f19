/** SQLite version 5: devices' sealed answers to a session's permission requests. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 5,
  name: "devices' sealed answers to a session's permission requests",
  sql: `
      CREATE TABLE session_answers (
        account_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        device_id TEXT NOT NULL,
        sealed_body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, session_id, seq),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions(account_id, id)
      );
    `,
};
