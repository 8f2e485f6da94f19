/**
 * Handoff records in SQLite: creation and every transition as a compare-and-set in one transaction, with
 * the checkpoint body it names or releases (retention.ts) in the same one.
 */
import type Database from 'better-sqlite3';
import type { Handoff } from '../../../shared/api/handoffs.ts';
import type { HandoffState } from '../../../shared/handoff-states.ts';
import { DEFAULT_KEEP_COMPLETED } from '../../retention.ts';
import type { HandoffStore } from '../store.ts';
import { fence, releaseOnEntering } from '../rules.ts';
import { sqliteCheckpointHolds } from './retention.ts';
import { refuse, toHandoff, toSession, type HandoffRow, type SessionRow } from '../rows.ts';
import type { Mutator } from './mutator.ts';

interface HistoryRow {
  state: HandoffState;
  at: number;
  device_id: string | null;
}

/** The `move` statement's field parameters for a step that carries none. */
const noFields = { digest: null, size: null, cancelCode: null, sealedReason: null, resumePath: null, sealedOutcome: null };

/** The handoff part of the SQLite store. */
export function sqliteHandoffStore(db: Database.Database, mutate: Mutator): HandoffStore {
  const q = {
    handoff: db.prepare('SELECT * FROM handoffs WHERE account_id = ? AND id = ?'),
    history: db.prepare('SELECT state, at, device_id FROM handoff_history WHERE account_id = ? AND handoff_id = ? ORDER BY seq'),
    byAccount: db.prepare('SELECT * FROM handoffs WHERE account_id = ? ORDER BY created_at, rowid'),
    bySession: db.prepare('SELECT * FROM handoffs WHERE account_id = ? AND session_id = ? ORDER BY created_at, rowid'),
    page: db.prepare(`SELECT * FROM handoffs WHERE account_id = @accountId
        AND (@sessionId IS NULL OR session_id = @sessionId)
        AND (@active IS NULL OR (state NOT IN ('completed', 'cancelled')) = @active)
        AND (@before IS NULL OR (created_at, rowid) < (SELECT created_at, rowid FROM handoffs WHERE account_id = @accountId AND id = @before))
      ORDER BY created_at DESC, rowid DESC LIMIT @limit`),
    active: db.prepare("SELECT id FROM handoffs WHERE account_id = ? AND session_id = ? AND state NOT IN ('completed', 'cancelled')"),
    session: db.prepare('SELECT * FROM sessions WHERE account_id = ? AND id = ?'),
    insert:
      db.prepare(`INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, initiator_device_id, state, generation,
      key_version, sealed_commits, created_at, updated_at)
      VALUES (@id, @accountId, @sessionId, @sourceDeviceId, @targetDeviceId, @initiatorDeviceId, 'requested', @generation, @keyVersion,
        @sealedCommits, @at, @at)`),
    insertHistory: db.prepare(`INSERT INTO handoff_history (account_id, handoff_id, seq, state, at, device_id)
      VALUES (@accountId, @id, (SELECT COUNT(*) + 1 FROM handoff_history WHERE account_id = @accountId AND handoff_id = @id), @state, @at, @deviceId)`),
    move: db.prepare(`UPDATE handoffs SET state = @to, updated_at = @at,
        checkpoint_digest = coalesce(@digest, checkpoint_digest), checkpoint_size = coalesce(@size, checkpoint_size),
        cancel_code = coalesce(@cancelCode, cancel_code), sealed_reason = coalesce(@sealedReason, sealed_reason),
        resume_path = coalesce(@resumePath, resume_path), sealed_outcome = coalesce(@sealedOutcome, sealed_outcome)
      WHERE account_id = @accountId AND id = @id AND state = @from`),
    transfer: db.prepare(`UPDATE sessions SET generation = generation + 1, owner_device_id = ?, updated_at = ?
      WHERE account_id = ? AND id = ? AND generation = ?`),
  };

  const holds = sqliteCheckpointHolds(db);
  const withHistory = (r: HandoffRow): Handoff =>
    toHandoff(
      r,
      (q.history.all(r.account_id, r.id) as HistoryRow[]).map((h) => ({ state: h.state, at: h.at, deviceId: h.device_id })),
    );
  const row = (accountId: string, id: string) => q.handoff.get(accountId, id) as HandoffRow | undefined;
  const session = (accountId: string, id: string) => q.session.get(accountId, id) as SessionRow | undefined;

  return {
    async createHandoff(input, idem) {
      return mutate(idem, () => {
        const s = session(input.accountId, input.sessionId);
        if (!s) refuse('not_found', 'no such session');
        fence(s, input.sourceDeviceId, input.generation);
        const active = q.active.get(input.accountId, input.sessionId) as { id: string } | undefined;
        if (active) refuse('handoff_in_progress', 'the session already has an active handoff', { handoffId: active.id });
        if (row(input.accountId, input.id)) refuse('already_exists', 'this account already has a handoff with this id');
        holds.releaseCancelled(input.accountId, input.sessionId, input.at);
        q.insert.run(input);
        q.insertHistory.run({ accountId: input.accountId, id: input.id, state: 'requested', at: input.at, deviceId: input.sourceDeviceId });
        return withHistory(row(input.accountId, input.id)!);
      });
    },
    async getHandoff(accountId, handoffId) {
      const r = row(accountId, handoffId);
      return r && withHistory(r);
    },
    async listHandoffs(accountId, { sessionId, active, page }) {
      if (page) {
        const params = {
          accountId,
          sessionId: sessionId ?? null,
          active: active === undefined ? null : Number(active),
          before: page.before ?? null,
        };
        return (q.page.all({ ...params, limit: page.limit }) as HandoffRow[]).map(withHistory);
      }
      const rows = (sessionId === undefined ? q.byAccount.all(accountId) : q.bySession.all(accountId, sessionId)) as HandoffRow[];
      const terminal = (state: HandoffState) => state === 'completed' || state === 'cancelled';
      return rows.filter((r) => active === undefined || active !== terminal(r.state)).map(withHistory);
    },
    async transitionHandoff(input, idem) {
      return mutate(idem, () => {
        const h = row(input.accountId, input.handoffId);
        if (!h) refuse('not_found', 'no such handoff');
        if (h.state !== input.from) refuse('state_mismatch', `the handoff is at ${h.state}, not ${input.from}`, { currentState: h.state });
        const s = session(h.account_id, h.session_id)!;
        if (s.generation !== input.generation) {
          refuse('stale_generation', `the session is at generation ${s.generation}, not ${input.generation}`, {
            currentGeneration: s.generation,
          });
        }
        const moved = q.move.run({
          accountId: h.account_id,
          id: h.id,
          from: input.from,
          to: input.to,
          at: input.at,
          digest: input.checkpoint?.digest ?? null,
          size: input.checkpoint?.size ?? null,
          cancelCode: input.reason?.code ?? null,
          sealedReason: input.reason?.sealed ?? null,
          resumePath: input.resumePath ?? null,
          sealedOutcome: input.sealedOutcome ?? null,
        });
        if (moved.changes !== 1) refuse('state_mismatch', 'the handoff moved meanwhile');
        if (input.checkpoint) holds.name(h.account_id, input.checkpoint);
        if (input.to === 'ownership-transferred') {
          if (q.transfer.run(h.target_device_id, input.at, h.account_id, s.id, input.generation).changes !== 1)
            refuse('stale_generation', 'the session moved meanwhile');
        }
        q.insertHistory.run({ accountId: h.account_id, id: h.id, state: input.to, at: input.at, deviceId: input.deviceId });
        if (input.continueTo) {
          // On in the same transaction: the fields went with the first step (the caller checked they belong to this state).
          q.move.run({ ...noFields, accountId: h.account_id, id: h.id, from: input.to, to: input.continueTo, at: input.at });
          q.insertHistory.run({ accountId: h.account_id, id: h.id, state: input.continueTo, at: input.at, deviceId: input.deviceId });
        }
        const release = releaseOnEntering(input);
        if (release) {
          const keep = input.keepCompleted ?? DEFAULT_KEEP_COMPLETED;
          holds.release(release, { accountId: h.account_id, sessionId: s.id, handoffId: h.id, keep, at: input.at });
        }
        return { handoff: withHistory(row(h.account_id, h.id)!), session: toSession(session(h.account_id, s.id)!) };
      });
    },
  };
}
