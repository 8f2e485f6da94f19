/** Versioned schema migrations of the SQLite store, applied in order inside one transaction each. */
import type Database from 'better-sqlite3';
import { SQLITE_RETENTION_MIGRATION } from '../retention-migrations.ts';

interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, devices, sessions, handoffs, blobs, memory, idempotency',
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        current_key_version INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE devices (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        name TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'enrolled', 'revoked')),
        signing_public_key TEXT NOT NULL,
        agreement_public_key TEXT NOT NULL,
        enrolled_at INTEGER,
        revoked_at INTEGER,
        last_seen_at INTEGER,
        sealed_capabilities TEXT,
        key_versions TEXT NOT NULL DEFAULT '[]'
      );
      CREATE INDEX devices_by_account ON devices(account_id);
      CREATE TABLE wrapped_keys (
        device_id TEXT NOT NULL REFERENCES devices(id),
        key_version INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        wrapped_by TEXT NOT NULL,
        wrapped TEXT NOT NULL,
        PRIMARY KEY (device_id, key_version)
      );
      CREATE TABLE invites (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        inviter_device_id TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE join_requests (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        invite_id TEXT NOT NULL REFERENCES invites(id),
        inviter_device_id TEXT NOT NULL,
        device_id TEXT NOT NULL REFERENCES devices(id),
        proof TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        reason TEXT,
        created_at INTEGER NOT NULL,
        decided_at INTEGER
      );
      CREATE INDEX join_requests_by_account ON join_requests(account_id, created_at);
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        owner_device_id TEXT NOT NULL,
        generation INTEGER NOT NULL CHECK (generation >= 1),
        sealed_meta TEXT NOT NULL,
        last_seq INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_by_account ON sessions(account_id, created_at);
      CREATE TABLE session_events (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        device_id TEXT NOT NULL,
        sealed_body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE handoffs (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        session_id TEXT NOT NULL REFERENCES sessions(id),
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
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX handoffs_by_account ON handoffs(account_id, created_at);
      -- At most one active (non-terminal) handoff per session, whatever the code above does.
      CREATE UNIQUE INDEX handoffs_one_active ON handoffs(session_id) WHERE state NOT IN ('completed', 'cancelled');
      CREATE TABLE handoff_history (
        handoff_id TEXT NOT NULL REFERENCES handoffs(id),
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        at INTEGER NOT NULL,
        device_id TEXT,
        PRIMARY KEY (handoff_id, seq)
      );
      CREATE TABLE blobs (
        account_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        size INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, digest)
      );
      CREATE TABLE memory_items (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        topic TEXT NOT NULL,
        device_id TEXT NOT NULL,
        sealed_body TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX memory_by_topic ON memory_items(account_id, topic, created_at);
      CREATE TABLE idempotency (
        device_id TEXT NOT NULL,
        key TEXT NOT NULL,
        request_digest TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (device_id, key)
      );
    `,
  },
  {
    version: 2,
    name: 'device enrollment statements (opaque, signed by the approving device)',
    sql: 'ALTER TABLE devices ADD COLUMN enrollment TEXT;',
  },
  {
    version: 3,
    name: 'client-chosen ids scoped to the account; at most one pending join request per invite',
    // Each table keyed by a client-chosen id is rebuilt with (account_id, id) as its key, and the
    // tables pointing at it carry the account too. Foreign keys are off while this runs (see migrate).
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
  },
  {
    version: 4,
    name: 'handoffs keep only the cancel code in clear (the sentence sealed) and carry the checkpoint key version',
    sql: `
      ALTER TABLE handoffs ADD COLUMN sealed_reason TEXT;
      ALTER TABLE handoffs DROP COLUMN cancel_message;
      ALTER TABLE handoffs ADD COLUMN key_version INTEGER;
    `,
  },
  {
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
  },
  SQLITE_RETENTION_MIGRATION,
  {
    version: 7,
    name: 'handoffs say which device asked for the move (the source, or the target with Move here)',
    sql: `ALTER TABLE handoffs ADD COLUMN initiator_device_id TEXT;`,
  },
  {
    version: 8,
    name: 'handoffs carry the commits the source was at, sealed (the target fetches just those)',
    sql: `ALTER TABLE handoffs ADD COLUMN sealed_commits TEXT;`,
  },
];

/** The version the newest SQLite migration brings a store to. */
export const LATEST_SQLITE_VERSION = MIGRATIONS.at(-1)!.version;

/**
 * Brings the database to the newest schema version; each migration commits with its version row.
 * Foreign keys are off while migrations run (so a table can be rebuilt under its name, as SQLite
 * documents) and every migration is checked with `foreign_key_check` before it commits.
 */
export function migrate(db: Database.Database, now: number, upTo = Infinity): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  let latest = 0;
  try {
    for (const migration of MIGRATIONS) {
      if (migration.version > upTo) break;
      latest = migration.version;
      if (applied.has(migration.version)) continue;
      db.transaction(() => {
        db.exec(migration.sql);
        const broken = db.pragma('foreign_key_check') as unknown[];
        if (broken.length > 0) throw new Error(`migration ${migration.version} would break ${broken.length} foreign keys`);
        record.run(migration.version, migration.name, now);
      }).immediate();
    }
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
  return latest;
}
