/** SQLite version 3: the ids a client chooses are scoped to its account; one pending join request per invite. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 3,
  name: 'client-chosen ids scoped to the account; at most one pending join request per invite',
  // Each table keyed by a client-chosen id is rebuilt with (account_id, id) as its key, and the
  // tables pointing at it carry the account too. Foreign keys are off while this runs (see ../migrate.ts).
  sql: `
      CREATE TABLE sessions_v3 (
        id TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        owner_device_id TEXT NOT NULL,
        generation INTEGER NOT NULL CHECK (generation >= 1),
        sealed_meta TEXT NOT NULL,
        last_seq INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, id)
      );
      INSERT INTO sessions_v3 SELECT id, account_id, owner_device_id, generation, sealed_meta, last_seq, created_at, updated_at
        FROM sessions ORDER BY rowid;
      CREATE TABLE session_events_v3 (
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
      INSERT INTO session_events_v3 SELECT s.account_id, e.session_id, e.seq, e.generation, e.device_id, e.sealed_body, e.created_at
        FROM session_events e JOIN sessions s ON s.id = e.session_id;
      CREATE TABLE handoffs_v3 (
        id TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        session_id TEXT NOT NULL,
        source_device_id TEXT NOT NULL,
        target_device_id TEXT NOT NULL,
        state TEXT NOT NULL,
        generation INTEGER NOT NULL,
        checkpoint_digest TEXT,
        checkpoint_size INTEGER,
        cancel_code TEXT,
        cancel_message TEXT,
        resume_path TEXT,
        sealed_outcome TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, id),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions(account_id, id)
      );
      INSERT INTO handoffs_v3 SELECT id, account_id, session_id, source_device_id, target_device_id, state, generation, checkpoint_digest,
        checkpoint_size, cancel_code, cancel_message, resume_path, sealed_outcome, created_at, updated_at FROM handoffs ORDER BY rowid;
      CREATE TABLE handoff_history_v3 (
        account_id TEXT NOT NULL,
        handoff_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        at INTEGER NOT NULL,
        device_id TEXT,
        PRIMARY KEY (account_id, handoff_id, seq),
        FOREIGN KEY (account_id, handoff_id) REFERENCES handoffs(account_id, id)
      );
      INSERT INTO handoff_history_v3 SELECT h.account_id, x.handoff_id, x.seq, x.state, x.at, x.device_id
        FROM handoff_history x JOIN handoffs h ON h.id = x.handoff_id;
      CREATE TABLE invites_v3 (
        id TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        inviter_device_id TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, id)
      );
      INSERT INTO invites_v3 SELECT id, account_id, inviter_device_id, expires_at, used_at, created_at FROM invites ORDER BY rowid;
      CREATE TABLE join_requests_v3 (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        invite_id TEXT NOT NULL,
        inviter_device_id TEXT NOT NULL,
        device_id TEXT NOT NULL REFERENCES devices(id),
        proof TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        reason TEXT,
        created_at INTEGER NOT NULL,
        decided_at INTEGER,
        FOREIGN KEY (account_id, invite_id) REFERENCES invites(account_id, id)
      );
      INSERT INTO join_requests_v3 SELECT id, account_id, invite_id, inviter_device_id, device_id, proof,
        status, reason, created_at, decided_at FROM join_requests ORDER BY rowid;
      -- Older bursts of join requests on one invite: all but the first pending one are turned down.
      UPDATE join_requests_v3 SET status = 'rejected', reason = 'another join request was already waiting on this invite'
        WHERE status = 'pending' AND rowid NOT IN (SELECT min(rowid) FROM join_requests_v3 WHERE status = 'pending' GROUP BY account_id, invite_id);
      CREATE TABLE memory_items_v3 (
        id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        topic TEXT NOT NULL,
        device_id TEXT NOT NULL,
        sealed_body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, id)
      );
      INSERT INTO memory_items_v3 SELECT id, account_id, topic, device_id, sealed_body, created_at FROM memory_items ORDER BY rowid;

      DROP TABLE handoff_history;
      DROP TABLE handoffs;
      DROP TABLE session_events;
      DROP TABLE sessions;
      DROP TABLE join_requests;
      DROP TABLE invites;
      DROP TABLE memory_items;
      ALTER TABLE sessions_v3 RENAME TO sessions;
      ALTER TABLE session_events_v3 RENAME TO session_events;
      ALTER TABLE handoffs_v3 RENAME TO handoffs;
      ALTER TABLE handoff_history_v3 RENAME TO handoff_history;
      ALTER TABLE invites_v3 RENAME TO invites;
      ALTER TABLE join_requests_v3 RENAME TO join_requests;
      ALTER TABLE memory_items_v3 RENAME TO memory_items;

      CREATE INDEX sessions_by_account ON sessions(account_id, created_at);
      CREATE INDEX handoffs_by_account ON handoffs(account_id, created_at);
      -- At most one active (non-terminal) handoff per session, whatever the code above does.
      CREATE UNIQUE INDEX handoffs_one_active ON handoffs(account_id, session_id) WHERE state NOT IN ('completed', 'cancelled');
      CREATE INDEX join_requests_by_account ON join_requests(account_id, created_at);
      -- At most one pending join request per invite.
      CREATE UNIQUE INDEX join_requests_one_pending ON join_requests(account_id, invite_id) WHERE status = 'pending';
      CREATE INDEX memory_by_topic ON memory_items(account_id, topic, created_at);
    `,
};
