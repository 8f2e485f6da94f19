/**
 * SQLite version 9: a session's posts (answers, Move here requests) are counted in a window per device
 * and per session, and pruned once taken, expired or old. The session keeps the last post's number
 * (`answers_seq`, so a pruned log never hands a number out twice) and how far its owner has taken them
 * (`answers_taken`).
 */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 9,
  name: "a session's posts counted per device and session, and pruned once taken, expired or old",
  sql: `
    ALTER TABLE sessions ADD COLUMN answers_seq INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN answers_taken INTEGER NOT NULL DEFAULT 0;
    UPDATE sessions SET answers_seq = COALESCE(
      (SELECT MAX(seq) FROM session_answers a WHERE a.account_id = sessions.account_id AND a.session_id = sessions.id), 0);
    CREATE INDEX session_answers_by_session_time ON session_answers(account_id, session_id, created_at);
    CREATE INDEX session_answers_by_device_time ON session_answers(device_id, created_at);
    CREATE INDEX session_answers_by_time ON session_answers(created_at);
  `,
};
