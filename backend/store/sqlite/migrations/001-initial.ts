/** SQLite version 1: the first schema. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
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
};
