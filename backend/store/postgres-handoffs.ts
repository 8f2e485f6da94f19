/**
 * Handoff records in PostgreSQL: creation and every transition as a compare-and-set in one
 * transaction (the same rules as sqlite-handoffs.ts). Locks are taken session first, then handoff,
 * so a create and a transition of one session queue rather than deadlock; the partial unique index
 * keeps one active handoff per session whatever runs concurrently.
 */
import type pg from 'pg';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { HandoffState } from '../../shared/handoff-states.ts';
import type { HandoffStore } from './store.ts';
import { fence } from './sqlite-sessions.ts';
import { refuse, toSession } from './sqlite-rows.ts';
import { row, rows, type PgMutator, type Sql } from './postgres-tx.ts';
import { sessionRow } from './postgres-sessions.ts';

interface HandoffRow {
  id: string;
  account_id: string;
  session_id: string;
  source_device_id: string;
  target_device_id: string;
  state: HandoffState;
  generation: number;
  checkpoint_digest: string | null;
  checkpoint_size: number | null;
  cancel_code: string | null;
  sealed_reason: string | null;
  key_version: number | null;
  resume_path: Handoff['resumePath'];
  sealed_outcome: string | null;
  created_at: number;
  updated_at: number;
  history: { state: HandoffState; at: number; deviceId: string | null }[];
}

/** Every column of a handoff and its history (as JSON, in order) in one read. */
const SELECT_HANDOFF = `SELECT h.id, h.account_id, h.session_id, h.source_device_id, h.target_device_id, h.state, h.generation,
    h.checkpoint_digest, h.checkpoint_size, h.cancel_code, h.sealed_reason, h.key_version, h.resume_path, h.sealed_outcome,
    h.created_at, h.updated_at,
    (SELECT coalesce(json_agg(json_build_object('state', x.state, 'at', x.at, 'deviceId', x.device_id) ORDER BY x.seq), '[]'::json)
       FROM handoff_history x WHERE x.account_id = h.account_id AND x.handoff_id = h.id) AS history
  FROM handoffs h`;

const toHandoff = (r: HandoffRow): Handoff => ({
  id: r.id,
  accountId: r.account_id,
  sessionId: r.session_id,
  sourceDeviceId: r.source_device_id,
  targetDeviceId: r.target_device_id,
  state: r.state,
  generation: r.generation,
  checkpoint: r.checkpoint_digest === null ? null : { digest: r.checkpoint_digest, size: r.checkpoint_size ?? 0 },
  keyVersion: r.key_version,
  cancelReason: r.cancel_code === null ? null : { code: r.cancel_code, sealed: r.sealed_reason },
  resumePath: r.resume_path,
  sealedOutcome: r.sealed_outcome,
  history: r.history,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const handoffRow = (sql: Sql, accountId: string, id: string) =>
  row<HandoffRow>(sql, `${SELECT_HANDOFF} WHERE h.account_id = $1 AND h.id = $2`, [accountId, id]);

const insertHistory = (sql: Sql, accountId: string, id: string, state: HandoffState, at: number, deviceId: string | null) =>
  sql.query(
    `INSERT INTO handoff_history (account_id, handoff_id, seq, state, at, device_id)
     VALUES ($1, $2, (SELECT count(*) + 1 FROM handoff_history WHERE account_id = $1 AND handoff_id = $2), $3, $4, $5)`,
    [accountId, id, state, at, deviceId],
  );

/** The handoff part of the PostgreSQL store. */
export function postgresHandoffStore(pool: pg.Pool, mutate: PgMutator): HandoffStore {
  return {
    createHandoff(input, idem) {
      return mutate(idem, async (sql) => {
        fence(await sessionRow(sql, input.accountId, input.sessionId, true), input.sourceDeviceId, input.generation);
        const active = await row<{ id: string }>(
          sql,
          "SELECT id FROM handoffs WHERE account_id = $1 AND session_id = $2 AND state NOT IN ('completed', 'cancelled')",
          [input.accountId, input.sessionId],
        );
        if (active) refuse('handoff_in_progress', 'the session already has an active handoff', { handoffId: active.id });
        if (await row(sql, 'SELECT 1 FROM handoffs WHERE account_id = $1 AND id = $2', [input.accountId, input.id]))
          refuse('already_exists', 'this account already has a handoff with this id');
        await sql.query(
          `INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, state, generation, key_version, created_at,
            updated_at) VALUES ($1, $2, $3, $4, $5, 'requested', $6, $7, $8, $8)`,
          [
            input.id,
            input.accountId,
            input.sessionId,
            input.sourceDeviceId,
            input.targetDeviceId,
            input.generation,
            input.keyVersion,
            input.at,
          ],
        );
        await insertHistory(sql, input.accountId, input.id, 'requested', input.at, input.sourceDeviceId);
        return toHandoff((await handoffRow(sql, input.accountId, input.id))!);
      });
    },
    async getHandoff(accountId, handoffId) {
      const r = await handoffRow(pool, accountId, handoffId);
      return r && toHandoff(r);
    },
    async listHandoffs(accountId, { sessionId, active }) {
      const found =
        sessionId === undefined
          ? await rows<HandoffRow>(pool, `${SELECT_HANDOFF} WHERE h.account_id = $1 ORDER BY h.created_at, h.seq`, [accountId])
          : await rows<HandoffRow>(pool, `${SELECT_HANDOFF} WHERE h.account_id = $1 AND h.session_id = $2 ORDER BY h.created_at, h.seq`, [
              accountId,
              sessionId,
            ]);
      const terminal = (state: HandoffState) => state === 'completed' || state === 'cancelled';
      return found.filter((r) => active === undefined || active !== terminal(r.state)).map(toHandoff);
    },
    transitionHandoff(input, idem) {
      return mutate(idem, async (sql) => {
        const found = await row<{ session_id: string }>(sql, 'SELECT session_id FROM handoffs WHERE account_id = $1 AND id = $2', [
          input.accountId,
          input.handoffId,
        ]);
        if (!found) refuse('not_found', 'no such handoff');
        // Session first, then the handoff: the order every writer of a session's rows takes.
        const s = (await sessionRow(sql, input.accountId, found.session_id, true))!;
        const h = (await row<{ state: HandoffState; target_device_id: string }>(
          sql,
          'SELECT state, target_device_id FROM handoffs WHERE account_id = $1 AND id = $2 FOR UPDATE',
          [input.accountId, input.handoffId],
        ))!;
        if (h.state !== input.from) refuse('state_mismatch', `the handoff is at ${h.state}, not ${input.from}`, { currentState: h.state });
        if (s.generation !== input.generation) {
          refuse('stale_generation', `the session is at generation ${s.generation}, not ${input.generation}`, {
            currentGeneration: s.generation,
          });
        }
        await sql.query(
          `UPDATE handoffs SET state = $3, updated_at = $4,
             checkpoint_digest = coalesce($5, checkpoint_digest), checkpoint_size = coalesce($6, checkpoint_size),
             cancel_code = coalesce($7, cancel_code), sealed_reason = coalesce($8, sealed_reason),
             resume_path = coalesce($9, resume_path), sealed_outcome = coalesce($10, sealed_outcome)
           WHERE account_id = $1 AND id = $2`,
          [
            input.accountId,
            input.handoffId,
            input.to,
            input.at,
            input.checkpoint?.digest ?? null,
            input.checkpoint?.size ?? null,
            input.reason?.code ?? null,
            input.reason?.sealed ?? null,
            input.resumePath ?? null,
            input.sealedOutcome ?? null,
          ],
        );
        if (input.to === 'ownership-transferred') {
          await sql.query(
            'UPDATE sessions SET generation = generation + 1, owner_device_id = $1, updated_at = $2 WHERE account_id = $3 AND id = $4',
            [h.target_device_id, input.at, input.accountId, s.id],
          );
        }
        await insertHistory(sql, input.accountId, input.handoffId, input.to, input.at, input.deviceId);
        const handoff = toHandoff((await handoffRow(sql, input.accountId, input.handoffId))!);
        return { handoff, session: toSession((await sessionRow(sql, input.accountId, s.id))!) };
      });
    },
  };
}
