/**
 * PostgreSQL version 1: the SQLite store's schema as of its version 4 (ids scoped to the account, one
 * pending join per invite, sealed cancel reasons, the checkpoint key version), in PostgreSQL's types,
 * plus what lives in the database here and in files or a side database with SQLite: request nonces,
 * blob bodies in chunks and the push log that carries push messages between instances. Each table that
 * SQLite orders by rowid has an identity `seq`.
 */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 1,
  name: 'accounts, devices, sessions, handoffs, blobs, memory, idempotency, nonces, push log',
  sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        current_key_version INTEGER NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE devices (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        name TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'enrolled', 'revoked')),
        signing_public_key TEXT NOT NULL,
        agreement_public_key TEXT NOT NULL,
        enrolled_at BIGINT,
        revoked_at BIGINT,
        last_seen_at BIGINT,
        sealed_capabilities TEXT,
        key_versions TEXT NOT NULL DEFAULT '[]',
        enrollment TEXT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX devices_by_account ON devices(account_id, seq);
      CREATE TABLE wrapped_keys (
        device_id TEXT NOT NULL REFERENCES devices(id),
        key_version INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        wrapped_by TEXT NOT NULL,
        wrapped TEXT NOT NULL,
        PRIMARY KEY (device_id, key_version)
      );
      CREATE TABLE invites (
        id TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        inviter_device_id TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, id)
      );
      CREATE TABLE join_requests (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        invite_id TEXT NOT NULL,
        inviter_device_id TEXT NOT NULL,
        device_id TEXT NOT NULL REFERENCES devices(id),
        proof TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        reason TEXT,
        created_at BIGINT NOT NULL,
        decided_at BIGINT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        FOREIGN KEY (account_id, invite_id) REFERENCES invites(account_id, id)
      );
      CREATE INDEX join_requests_by_account ON join_requests(account_id, created_at, seq);
      -- At most one pending join request per invite.
      CREATE UNIQUE INDEX join_requests_one_pending ON join_requests(account_id, invite_id) WHERE status = 'pending';
      CREATE TABLE sessions (
        id TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        owner_device_id TEXT NOT NULL,
        generation INTEGER NOT NULL CHECK (generation >= 1),
        sealed_meta TEXT NOT NULL,
        last_seq INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (account_id, id)
      );
      CREATE INDEX sessions_by_account ON sessions(account_id, created_at, seq);
      CREATE TABLE session_events (
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
      CREATE TABLE handoffs (
        id TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        session_id TEXT NOT NULL,
        source_device_id TEXT NOT NULL,
        target_device_id TEXT NOT NULL,
        state TEXT NOT NULL,
        generation INTEGER NOT NULL,
        checkpoint_digest TEXT,
        checkpoint_size BIGINT,
        cancel_code TEXT,
        sealed_reason TEXT,
        key_version INTEGER,
        resume_path TEXT,
        sealed_outcome TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (account_id, id),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions(account_id, id)
      );
      CREATE INDEX handoffs_by_account ON handoffs(account_id, created_at, seq);
      CREATE INDEX handoffs_by_session ON handoffs(account_id, session_id, created_at, seq);
      -- At most one active (non-terminal) handoff per session, whatever the code above does.
      CREATE UNIQUE INDEX handoffs_one_active ON handoffs(account_id, session_id) WHERE state NOT IN ('completed', 'cancelled');
      CREATE TABLE handoff_history (
        account_id TEXT NOT NULL,
        handoff_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        at BIGINT NOT NULL,
        device_id TEXT,
        PRIMARY KEY (account_id, handoff_id, seq),
        FOREIGN KEY (account_id, handoff_id) REFERENCES handoffs(account_id, id)
      );
      CREATE TABLE blobs (
        account_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        size BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, digest)
      );
      CREATE TABLE memory_items (
        id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        topic TEXT NOT NULL,
        device_id TEXT NOT NULL,
        sealed_body TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (account_id, id)
      );
      CREATE INDEX memory_by_topic ON memory_items(account_id, topic, created_at, seq);
      CREATE TABLE idempotency (
        device_id TEXT NOT NULL,
        key TEXT NOT NULL,
        request_digest TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (device_id, key)
      );
      CREATE INDEX idempotency_by_age ON idempotency(created_at);
      -- Request nonces, shared by every instance: a nonce spent on one is spent on all.
      CREATE TABLE nonces (
        device_id TEXT NOT NULL,
        nonce TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (device_id, nonce)
      );
      CREATE INDEX nonces_by_expiry ON nonces(expires_at);
      -- Blob bodies: chunks are written under an upload id as they arrive; a checked upload becomes the
      -- body of its digest in one transaction. Uploads never committed are pruned once idle.
      CREATE TABLE blob_uploads (
        id TEXT PRIMARY KEY,
        touched_at BIGINT NOT NULL
      );
      CREATE TABLE blob_chunks (
        upload_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (upload_id, seq)
      );
      -- Sealed bytes do not compress: store them out of line as they are.
      ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE TABLE blob_bodies (
        digest TEXT PRIMARY KEY,
        upload_id TEXT NOT NULL,
        size BIGINT NOT NULL,
        chunks INTEGER NOT NULL,
        created_at BIGINT NOT NULL
      );
      -- Push messages for every instance's streams (NOTIFY wakes them; they read by cursor), kept briefly.
      CREATE TABLE push_log (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        origin TEXT NOT NULL,
        account_id TEXT NOT NULL,
        message TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX push_log_by_age ON push_log(created_at);
    `,
};
