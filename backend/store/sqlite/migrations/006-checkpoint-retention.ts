/**
 * SQLite version 6: checkpoint retention (../retention.ts): which handoffs still hold their checkpoint
 * body, how many hold each blob record, and the queue of digests whose bodies go once nothing names them.
 * Handoffs that no longer need their body when the migration runs are released at once, by the default
 * number of completed handoffs kept (10).
 */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 6,
  name: 'checkpoint retention: which handoffs hold their body, how many hold each blob, bodies queued for removal',
  sql: `
    -- When the handoff stopped needing its checkpoint body (null while it holds it).
    ALTER TABLE handoffs ADD COLUMN checkpoint_released_at INTEGER;
    -- How many transitions named the blob as a checkpoint, and how many of those handoffs still hold it.
    ALTER TABLE blobs ADD COLUMN named INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE blobs ADD COLUMN holds INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX blobs_by_digest ON blobs(digest);
    CREATE INDEX blobs_collectable ON blobs(created_at) WHERE holds = 0;
    CREATE INDEX handoffs_holding ON handoffs(account_id, session_id, state, updated_at)
      WHERE checkpoint_digest IS NOT NULL AND checkpoint_released_at IS NULL;
    -- Digests whose records are gone (or whose file may have none): their bodies go once nothing names them.
    CREATE TABLE blob_garbage (digest TEXT PRIMARY KEY, due_at INTEGER NOT NULL);
    CREATE INDEX blob_garbage_by_due ON blob_garbage(due_at);
    -- A backup in progress (store/backup.ts): no body is removed until it ends or its hold lapses.
    CREATE TABLE backup_holds (id TEXT PRIMARY KEY, until INTEGER NOT NULL);
    -- Bodies no handoff needs any more: cancelled before the transfer (or after it, with a newer handoff of the
    -- session since), or completed beyond the session's newest 10 (the default number kept).
    UPDATE handoffs SET checkpoint_released_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
      WHERE checkpoint_digest IS NOT NULL AND (
        (state = 'cancelled' AND (
          NOT EXISTS (SELECT 1 FROM handoff_history x WHERE x.account_id = handoffs.account_id AND x.handoff_id = handoffs.id
                        AND x.state = 'ownership-transferred')
          OR EXISTS (SELECT 1 FROM handoffs n WHERE n.account_id = handoffs.account_id AND n.session_id = handoffs.session_id
                       AND n.created_at > handoffs.created_at)))
        OR rowid IN (SELECT rowid FROM (SELECT rowid, row_number() OVER (PARTITION BY account_id, session_id
                       ORDER BY updated_at DESC, rowid DESC) AS nth FROM handoffs WHERE state = 'completed') WHERE nth > 10));
    CREATE INDEX handoffs_by_checkpoint ON handoffs(account_id, checkpoint_digest);
    UPDATE blobs SET
      named = (SELECT count(*) FROM handoffs h WHERE h.account_id = blobs.account_id AND h.checkpoint_digest = blobs.digest),
      holds = (SELECT count(*) FROM handoffs h WHERE h.account_id = blobs.account_id AND h.checkpoint_digest = blobs.digest
                 AND h.checkpoint_released_at IS NULL);
    DROP INDEX handoffs_by_checkpoint;
  `,
};
