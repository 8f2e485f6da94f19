/**
 * PostgreSQL version 8: a session's posts counted per device and session, and pruned once taken,
 * expired or old (as SQLite version 9).
 */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 8,
  name: "a session's posts counted per device and session, and pruned once taken, expired or old (as SQLite version 9)",
  sql: `
    ALTER TABLE sessions ADD COLUMN answers_seq INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN answers_taken INTEGER NOT NULL DEFAULT 0;
    UPDATE sessions s SET answers_seq = COALESCE(
      (SELECT MAX(seq) FROM session_answers a WHERE a.account_id = s.account_id AND a.session_id = s.id), 0);
    CREATE INDEX session_answers_by_session_time ON session_answers(account_id, session_id, created_at);
    CREATE INDEX session_answers_by_device_time ON session_answers(device_id, created_at);
    CREATE INDEX session_answers_by_time ON session_answers(created_at);
  `,
};
