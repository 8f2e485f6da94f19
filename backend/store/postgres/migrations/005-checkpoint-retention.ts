/**
 * PostgreSQL version 5: checkpoint retention (../retention.ts) as SQLite version 6, and when each body was
 * last put. Handoffs that no longer need their body when the migration runs are released at once, by the
 * default number of completed handoffs kept (10).
 */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 5,
  name: 'checkpoint retention (as SQLite version 6), and when each body was last put',
  sql: `
    ALTER TABLE handoffs ADD COLUMN checkpoint_released_at BIGINT;
    ALTER TABLE blobs ADD COLUMN named INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE blobs ADD COLUMN holds INTEGER NOT NULL DEFAULT 0;
    -- When the body was last committed or recorded: one being recorded is never removed under it.
    ALTER TABLE blob_bodies ADD COLUMN put_at BIGINT;
    UPDATE blob_bodies SET put_at = created_at;
    ALTER TABLE blob_bodies ALTER COLUMN put_at SET NOT NULL;
    UPDATE handoffs h SET checkpoint_released_at = (extract(epoch FROM now()) * 1000)::bigint
      WHERE h.checkpoint_digest IS NOT NULL AND (
        (h.state = 'cancelled' AND (
          NOT EXISTS (SELECT 1 FROM handoff_history x WHERE x.account_id = h.account_id AND x.handoff_id = h.id
                        AND x.state = 'ownership-transferred')
          OR EXISTS (SELECT 1 FROM handoffs n WHERE n.account_id = h.account_id AND n.session_id = h.session_id
                       AND n.created_at > h.created_at)))
        OR (h.account_id, h.id) IN (SELECT account_id, id FROM (SELECT account_id, id, row_number() OVER (
              PARTITION BY account_id, session_id ORDER BY updated_at DESC, seq DESC) AS nth FROM handoffs WHERE state = 'completed') r
            WHERE nth > 10));
    UPDATE blobs b SET named = c.named, holds = c.holds
      FROM (SELECT account_id, checkpoint_digest AS digest, count(*) AS named, count(*) FILTER (WHERE checkpoint_released_at IS NULL) AS holds
            FROM handoffs WHERE checkpoint_digest IS NOT NULL GROUP BY account_id, checkpoint_digest) c
      WHERE b.account_id = c.account_id AND b.digest = c.digest;
    CREATE INDEX blobs_by_digest ON blobs(digest);
    CREATE INDEX blobs_collectable ON blobs(created_at) WHERE holds = 0;
    CREATE INDEX handoffs_holding ON handoffs(account_id, session_id, state, updated_at)
      WHERE checkpoint_digest IS NOT NULL AND checkpoint_released_at IS NULL;
    CREATE TABLE blob_garbage (digest TEXT PRIMARY KEY, due_at BIGINT NOT NULL);
    CREATE INDEX blob_garbage_by_due ON blob_garbage(due_at);
    -- Every body stored so far is looked at once: those no record names (a crash between a body and its record) go.
    INSERT INTO blob_garbage (digest, due_at) SELECT digest, 0 FROM blob_bodies;
  `,
};
