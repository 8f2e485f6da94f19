/**
 * Handoff records in PostgreSQL: creation and every transition as a compare-and-set in one
 * transaction (the same rules as sqlite/handoffs.ts). Locks are taken session first, then handoff,
 * so a create and a transition of one session queue rather than deadlock; the partial unique index
 * keeps one active handoff per session whatever runs concurrently. The checkpoint bodies a handoff
 * names and releases are counted on their records in the same transaction (sqlite/retention.ts).
 */
import type pg from 'pg';
import type { Handoff } from '../../../shared/api/handoffs.ts';
import type { HandoffState } from '../../../shared/handoff-states.ts';
import type { HandoffStore, TransitionInput } from '../store.ts';
import { refuse, toHandoff, toSession, type HandoffRow, type SessionRow } from '../rows.ts';
import { fence, refuseUnnamable, releaseOnEntering } from '../rules.ts';
import { DEFAULT_KEEP_COMPLETED } from '../../retention.ts';
import { row, rows, type PgMutator, type Sql } from './tx.ts';
import { SESSION_COLUMNS, sessionRow } from './sessions.ts';

/** A handoff row with its history, read in one statement (SELECT_HANDOFF). */
type HandoffRowWithHistory = HandoffRow & { history: Handoff['history'] };

/** Every column of a handoff and its history (as JSON, in order) in one read. */
const SELECT_HANDOFF = `SELECT h.id, h.account_id, h.session_id, h.source_device_id, h.target_device_id, h.initiator_device_id, h.state,
    h.generation, h.checkpoint_digest, h.checkpoint_size, h.checkpoint_released_at, h.cancel_code, h.sealed_reason, h.key_version,
    h.resume_path, h.sealed_outcome, h.sealed_commits,
    h.created_at, h.updated_at,
    (SELECT coalesce(json_agg(json_build_object('state', x.state, 'at', x.at, 'deviceId', x.device_id) ORDER BY x.seq), '[]'::json)
       FROM handoff_history x WHERE x.account_id = h.account_id AND x.handoff_id = h.id) AS history
  FROM handoffs h`;

/** One page of handoffs, newest first: $2 session (or any), $3 active (or any), $4 before this handoff (or from the newest), $5 how many. */
const PAGE = `${SELECT_HANDOFF} WHERE h.account_id = $1
    AND ($2::text IS NULL OR h.session_id = $2)
    AND ($3::boolean IS NULL OR (h.state NOT IN ('completed', 'cancelled')) = $3)
    AND ($4::text IS NULL OR (h.created_at, h.seq) < (SELECT created_at, seq FROM handoffs WHERE account_id = $1 AND id = $4))
  ORDER BY h.created_at DESC, h.seq DESC LIMIT $5`;

const withHistory = (r: HandoffRowWithHistory): Handoff => toHandoff(r, r.history);

const handoffRow = (sql: Sql, accountId: string, id: string) =>
  row<HandoffRowWithHistory>(sql, `${SELECT_HANDOFF} WHERE h.account_id = $1 AND h.id = $2`, [accountId, id]);

/** The handoff's columns as `moved` returns them, its history (the rows before plus `added`) as JSON, in order. */
const RETURN_HANDOFF = `m.id, m.account_id, m.session_id, m.source_device_id, m.target_device_id, m.initiator_device_id, m.state,
    m.generation, m.checkpoint_digest, m.checkpoint_size, m.checkpoint_released_at, m.cancel_code, m.sealed_reason, m.key_version,
    m.resume_path, m.sealed_outcome, m.sealed_commits,
    m.created_at, m.updated_at,
    (SELECT json_agg(json_build_object('state', x.state, 'at', x.at, 'deviceId', x.device_id) ORDER BY x.seq)
       FROM (SELECT seq, state, at, device_id FROM handoff_history WHERE account_id = m.account_id AND handoff_id = m.id
             UNION ALL SELECT seq, state, at, device_id FROM added) x) AS history`;

/** Appends the history row of `moved` (the next seq of its handoff). */
const ADD_HISTORY = `added AS (
    INSERT INTO handoff_history (account_id, handoff_id, seq, state, at, device_id)
    SELECT m.account_id, m.id, (SELECT count(*) + 1 FROM handoff_history x WHERE x.account_id = m.account_id AND x.handoff_id = m.id),
      m.state, m.updated_at, $DEVICE
    FROM moved m RETURNING seq, state, at, device_id)`;

/**
 * One statement: the handoff row inserted (at `requested`), its first history row, and the whole
 * record as it now reads. The session is locked and the checks made before.
 */
const CREATE = `WITH moved AS (
    INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, initiator_device_id, state, generation,
      key_version, sealed_commits, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $9, 'requested', $6, $7, $10, $8, $8) RETURNING *),
  ${ADD_HISTORY.replace('$DEVICE', '$4')}
  SELECT ${RETURN_HANDOFF} FROM moved m`;

/**
 * One statement: the compare-and-set on the handoff's state (`$11`; `$12` says the session's
 * generation matched), its history row, at ownership-transferred the session's generation and
 * owner, and the checkpoint it names (`$5`) held by its record; returns the record as it now reads,
 * the session row it changed and the size of the record named, or no row when refused. The record's
 * row is updated, so a collection deleting it at the same time either goes first (no record: the
 * transition is refused) or sees it held and leaves it (retention.ts).
 */
const TRANSITION = `WITH moved AS (
    UPDATE handoffs SET state = $3, updated_at = $4,
      checkpoint_digest = coalesce($5, checkpoint_digest), checkpoint_size = coalesce($6, checkpoint_size),
      cancel_code = coalesce($7, cancel_code), sealed_reason = coalesce($8, sealed_reason),
      resume_path = coalesce($9, resume_path), sealed_outcome = coalesce($10, sealed_outcome)
    WHERE account_id = $1 AND id = $2 AND state = $11 AND $12::boolean RETURNING *),
  ${ADD_HISTORY.replace('$DEVICE', '$13')},
  owner AS (
    UPDATE sessions s SET generation = s.generation + 1, owner_device_id = m.target_device_id, updated_at = m.updated_at
    FROM moved m WHERE m.state = 'ownership-transferred' AND s.account_id = m.account_id AND s.id = m.session_id
    RETURNING s.id, s.account_id, s.owner_device_id, s.generation, s.sealed_meta, s.last_seq, s.created_at, s.updated_at),
  named AS (
    UPDATE blobs b SET named = b.named + 1, holds = b.holds + 1 FROM moved m
    WHERE $5::text IS NOT NULL AND b.account_id = m.account_id AND b.digest = $5 RETURNING b.size)
  SELECT ${RETURN_HANDOFF}, (SELECT row_to_json(o) FROM owner o) AS owner, (SELECT size FROM named) AS named_size FROM moved m`;

/**
 * Releases the checkpoints the handoffs `which` selects still hold (`$1` account, `$2` the time, `$3` a
 * handoff or session id, `$4` how many completed stay kept), one hold fewer on each record; the ids released.
 */
const release = (which: string) => `WITH released AS (
    UPDATE handoffs SET checkpoint_released_at = $2
    WHERE account_id = $1 AND checkpoint_digest IS NOT NULL AND checkpoint_released_at IS NULL AND ${which}
    RETURNING id, account_id, checkpoint_digest),
  unheld AS (
    UPDATE blobs b SET holds = greatest(b.holds - r.n, 0)
    FROM (SELECT account_id, checkpoint_digest AS digest, count(*)::int AS n FROM released GROUP BY account_id, checkpoint_digest) r
    WHERE b.account_id = r.account_id AND b.digest = r.digest)
  SELECT id FROM released`;

const RELEASE = {
  own: release('id = $3'),
  'beyond-kept': release(`id IN (SELECT id FROM handoffs WHERE account_id = $1 AND session_id = $3 AND state = 'completed'
      AND checkpoint_digest IS NOT NULL AND checkpoint_released_at IS NULL ORDER BY updated_at DESC, seq DESC OFFSET $4::int)`),
  cancelled: release(`session_id = $3 AND state = 'cancelled'`),
};

/**
 * Runs TRANSITION for `input`'s handoff from `from` to `to` with `fields`, when `generationMatched`;
 * the row it returns, or none when refused.
 */
function transition(
  sql: Sql,
  input: TransitionInput,
  from: HandoffState,
  to: HandoffState,
  generationMatched: boolean,
  fields: Pick<TransitionInput, 'checkpoint' | 'reason' | 'resumePath' | 'sealedOutcome'>,
) {
  return row<HandoffRowWithHistory & { owner: SessionRow | null; named_size: number | null }>(sql, TRANSITION, [
    input.accountId,
    input.handoffId,
    to,
    input.at,
    fields.checkpoint?.digest ?? null,
    fields.checkpoint?.size ?? null,
    fields.reason?.code ?? null,
    fields.reason?.sealed ?? null,
    fields.resumePath ?? null,
    fields.sealedOutcome ?? null,
    from,
    generationMatched,
    input.deviceId,
  ]);
}

/** Runs the release ending a handoff calls for (releaseOnEntering), in `sessionId`; the ids of the handoffs released. */
async function releaseFor(sql: Sql, input: TransitionInput, sessionId: string): Promise<string[]> {
  const kind = releaseOnEntering(input);
  if (!kind) return [];
  const values =
    kind === 'own'
      ? [input.accountId, input.at, input.handoffId]
      : [input.accountId, input.at, sessionId, input.keepCompleted ?? DEFAULT_KEEP_COMPLETED];
  return (await rows<{ id: string }>(sql, RELEASE[kind], values)).map((r) => r.id);
}

/** The handoff part of the PostgreSQL store. */
export function postgresHandoffStore(pool: pg.Pool, mutate: PgMutator): HandoffStore {
  return {
    createHandoff(input, idem) {
      return mutate(idem, async (sql) => {
        fence(await sessionRow(sql, input.accountId, input.sessionId, true), input.sourceDeviceId, input.generation);
        const taken = await row<{ active: string | null; exists: boolean }>(
          sql,
          `SELECT (SELECT id FROM handoffs WHERE account_id = $1 AND session_id = $2 AND state NOT IN ('completed', 'cancelled')) AS active,
             EXISTS (SELECT 1 FROM handoffs WHERE account_id = $1 AND id = $3) AS exists`,
          [input.accountId, input.sessionId, input.id],
        );
        if (taken!.active) refuse('handoff_in_progress', 'the session already has an active handoff', { handoffId: taken!.active });
        if (taken!.exists) refuse('already_exists', 'this account already has a handoff with this id');
        await rows(sql, RELEASE.cancelled, [input.accountId, input.at, input.sessionId]);
        const created = await row<HandoffRowWithHistory>(sql, CREATE, [
          input.id,
          input.accountId,
          input.sessionId,
          input.sourceDeviceId,
          input.targetDeviceId,
          input.generation,
          input.keyVersion,
          input.at,
          input.initiatorDeviceId,
          input.sealedCommits,
        ]);
        return withHistory(created!);
      });
    },
    async getHandoff(accountId, handoffId) {
      const r = await handoffRow(pool, accountId, handoffId);
      return r && withHistory(r);
    },
    async listHandoffs(accountId, { sessionId, active, page }) {
      if (page) {
        const params = [accountId, sessionId ?? null, active ?? null, page.before ?? null, page.limit];
        return (await rows<HandoffRowWithHistory>(pool, PAGE, params)).map(withHistory);
      }
      const found =
        sessionId === undefined
          ? await rows<HandoffRowWithHistory>(pool, `${SELECT_HANDOFF} WHERE h.account_id = $1 ORDER BY h.created_at, h.seq`, [accountId])
          : await rows<HandoffRowWithHistory>(
              pool,
              `${SELECT_HANDOFF} WHERE h.account_id = $1 AND h.session_id = $2 ORDER BY h.created_at, h.seq`,
              [accountId, sessionId],
            );
      const terminal = (state: HandoffState) => state === 'completed' || state === 'cancelled';
      return found.filter((r) => active === undefined || active !== terminal(r.state)).map(withHistory);
    },
    transitionHandoff(input, idem) {
      return mutate(idem, async (sql) => {
        // Session first, found through the handoff in the same read: the order every writer of a session's rows takes.
        const s = await row<SessionRow>(
          sql,
          `SELECT ${SESSION_COLUMNS} FROM sessions
           WHERE account_id = $1 AND id = (SELECT session_id FROM handoffs WHERE account_id = $1 AND id = $2) FOR UPDATE`,
          [input.accountId, input.handoffId],
        );
        if (!s) refuse('not_found', 'no such handoff');
        const moved = await transition(sql, input, input.from, input.to, s.generation === input.generation, input);
        if (!moved) {
          // Refused: the handoff cannot have moved since (its writers hold the session's lock first).
          const h = await row<{ state: HandoffState }>(sql, 'SELECT state FROM handoffs WHERE account_id = $1 AND id = $2', [
            input.accountId,
            input.handoffId,
          ]);
          if (h!.state !== input.from)
            refuse('state_mismatch', `the handoff is at ${h!.state}, not ${input.from}`, { currentState: h!.state });
          refuse('stale_generation', `the session is at generation ${s.generation}, not ${input.generation}`, {
            currentGeneration: s.generation,
          });
        }
        if (input.checkpoint) refuseUnnamable(moved.named_size ?? undefined, input.checkpoint);
        // On in the same transaction: the fields went with the first step (the caller checked they belong to this state).
        const last = input.continueTo ? await transition(sql, input, input.to, input.continueTo, true, {}) : moved;
        const released = await releaseFor(sql, input, s.id);
        const { owner, ...handoff } = last!;
        if (released.includes(handoff.id)) handoff.checkpoint_released_at = input.at;
        return { handoff: withHistory(handoff), session: toSession(moved.owner ?? owner ?? s) };
      });
    },
  };
}
