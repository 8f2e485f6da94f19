/**
 * Checkpoint retention in SQLite. A blob record counts the transitions that named it (`named`) and the
 * handoffs that still hold it (`holds`); a handoff holds its checkpoint from the transition that names
 * it until `checkpoint_released_at`. Naming and releasing run inside the handoff transactions
 * (handoffs.ts); collection takes, a batch per transaction, the records no handoff holds and
 * queues their digests, whose bodies the blob store removes once no record names them. Every mutation
 * goes through the one mutator, so a transition naming a body and the collection of its record are
 * never interleaved: whichever commits first, the other sees it. Collection also prunes, a batch per
 * transaction, the posts of sessions' logs nothing needs (store.ts, RetentionStore.prunePosts).
 */
import type Database from 'better-sqlite3';
import type { CheckpointRef } from '../../../shared/api/handoffs.ts';
import type { RetentionStore } from '../store.ts';
import { refuseUnnamable } from '../rules.ts';
import type { Mutator } from './mutator.ts';

/** Naming and releasing checkpoint bodies, called inside a handoff transaction. */
export interface CheckpointHolds {
  /** Names `ref` as a checkpoint: its record holds one more handoff; refuses when there is no record of that size. */
  name(accountId: string, ref: CheckpointRef): void;
  /** Releases, at `at`, `handoffId`'s own body or those of its session's completed handoffs beyond the newest `keep` (releaseOnEntering). */
  release(kind: 'beyond-kept' | 'own', input: { accountId: string; sessionId: string; handoffId: string; keep: number; at: number }): void;
  /** Releases the bodies the session's cancelled handoffs still hold (a newer handoff begins). */
  releaseCancelled(accountId: string, sessionId: string, at: number): void;
}

/** The naming and releasing statements of `db`. */
export function sqliteCheckpointHolds(db: Database.Database): CheckpointHolds {
  const q = {
    size: db.prepare('SELECT size FROM blobs WHERE account_id = ? AND digest = ?').pluck(),
    name: db.prepare('UPDATE blobs SET named = named + 1, holds = holds + 1 WHERE account_id = ? AND digest = ?'),
    releaseOne: db
      .prepare(
        `UPDATE handoffs SET checkpoint_released_at = ?
         WHERE account_id = ? AND id = ? AND checkpoint_digest IS NOT NULL AND checkpoint_released_at IS NULL RETURNING checkpoint_digest`,
      )
      .pluck(),
    unhold: db.prepare('UPDATE blobs SET holds = holds - 1 WHERE account_id = ? AND digest = ? AND holds > 0'),
    beyondKept: db
      .prepare(
        `SELECT id FROM handoffs WHERE account_id = ? AND session_id = ? AND state = 'completed'
           AND checkpoint_digest IS NOT NULL AND checkpoint_released_at IS NULL ORDER BY updated_at DESC, rowid DESC LIMIT -1 OFFSET ?`,
      )
      .pluck(),
    cancelled: db
      .prepare(
        `SELECT id FROM handoffs WHERE account_id = ? AND session_id = ? AND state = 'cancelled'
           AND checkpoint_digest IS NOT NULL AND checkpoint_released_at IS NULL`,
      )
      .pluck(),
  };
  const releaseOne = (accountId: string, handoffId: string, at: number) => {
    const digest = q.releaseOne.get(at, accountId, handoffId) as string | undefined;
    if (digest !== undefined) q.unhold.run(accountId, digest);
  };
  return {
    name(accountId, ref) {
      refuseUnnamable(q.size.get(accountId, ref.digest) as number | undefined, ref);
      q.name.run(accountId, ref.digest);
    },
    release(kind, { accountId, sessionId, handoffId, keep, at }) {
      const ids = kind === 'own' ? [handoffId] : (q.beyondKept.all(accountId, sessionId, keep) as string[]);
      for (const id of ids) releaseOne(accountId, id, at);
    },
    releaseCancelled(accountId, sessionId, at) {
      for (const id of q.cancelled.all(accountId, sessionId) as string[]) releaseOne(accountId, id, at);
    },
  };
}

/** What collection takes from the SQLite store (see the file header). */
export function sqliteRetentionStore(db: Database.Database, mutate: Mutator): RetentionStore {
  const q = {
    collectable: db.prepare('SELECT account_id AS accountId, digest FROM blobs WHERE holds = 0 AND (named > 0 OR created_at < ?) LIMIT ?'),
    drop: db.prepare('DELETE FROM blobs WHERE account_id = ? AND digest = ?'),
    queue: db.prepare('INSERT INTO blob_garbage (digest, due_at) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING'),
    recorded: db.prepare('SELECT 1 FROM blobs WHERE digest = ? LIMIT 1').pluck(),
    due: db.prepare('SELECT digest FROM blob_garbage WHERE due_at <= ? ORDER BY due_at LIMIT ?').pluck(),
    held: db.prepare('SELECT 1 FROM backup_holds WHERE until > ? LIMIT 1').pluck(),
    settle: db.prepare('DELETE FROM blob_garbage WHERE digest = ?'),
    postpone: db.prepare('UPDATE blob_garbage SET due_at = ? WHERE digest = ?'),
    prunePosts: db.prepare(
      `DELETE FROM session_answers WHERE rowid IN (
         SELECT a.rowid FROM session_answers a JOIN sessions s ON s.account_id = a.account_id AND s.id = a.session_id
         WHERE a.created_at < @keptAfter AND (a.created_at < @expiredBefore OR a.generation < s.generation OR a.seq <= s.answers_taken)
         LIMIT @limit)`,
    ),
  };
  const run = async <T>(fn: () => T): Promise<T> => {
    const result = await mutate(undefined, fn);
    if (!result.ok) throw new Error(result.message);
    return result.value;
  };
  return {
    collectBlobRecords: ({ unnamedBefore, limit, at }) =>
      run(() => {
        const doomed = q.collectable.all(unnamedBefore, limit) as { accountId: string; digest: string }[];
        for (const { accountId, digest } of doomed) {
          q.drop.run(accountId, digest);
          q.queue.run(digest, at);
        }
        return doomed.length;
      }),
    prunePosts: (input) => run(() => q.prunePosts.run(input).changes),
    async unrecordedDigests(digests) {
      return digests.filter((digest) => q.recorded.get(digest) === undefined);
    },
    queueBodies: (digests, at) => run(() => digests.forEach((digest) => q.queue.run(digest, at))),
    async dueBodies(now, limit) {
      return q.held.get(now) === undefined ? (q.due.all(now, limit) as string[]) : [];
    },
    settleBodies: (taken, settled, later) =>
      run(() => {
        const done = new Set(settled);
        for (const digest of taken) {
          if (done.has(digest)) q.settle.run(digest);
          else q.postpone.run(later, digest);
        }
      }),
  };
}
