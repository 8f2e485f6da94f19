/** Sessions and their fenced, append-only event log in PostgreSQL (the same rules as sqlite/sessions.ts). */
import type pg from 'pg';
import type { PostCaps, PostLoad, SessionStore } from '../store.ts';
import { refuse, toEvent, toSession, type EventRow, type SessionRow } from '../rows.ts';
import { fence, refuseOverPostCap } from '../rules.ts';
import { row, rows, type PgMutator, type Sql } from './tx.ts';

/** A session row's columns, as every read of one lists them. */
export const SESSION_COLUMNS = 'id, account_id, owner_device_id, generation, sealed_meta, last_seq, created_at, updated_at';

/** The session row, locked for the rest of the transaction when `lock` (every fenced write takes it first). */
export function sessionRow(sql: Sql, accountId: string, id: string, lock = false): Promise<SessionRow | undefined> {
  return row<SessionRow>(sql, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE account_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [
    accountId,
    id,
  ]);
}

type LogTable = 'session_events' | 'session_answers';
type LogEntry = { sessionId: string; seq: number; generation: number; deviceId: string; sealedBody: string; createdAt: number };

/** Inserts one entry of a session's sealed log (its seq already taken) and returns it. */
async function insertLogEntry(sql: Sql, table: LogTable, accountId: string, entry: LogEntry): Promise<LogEntry> {
  const { sessionId, seq, generation, deviceId, sealedBody, createdAt } = entry;
  await sql.query(
    `INSERT INTO ${table} (account_id, session_id, seq, generation, device_id, sealed_body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [accountId, sessionId, seq, generation, deviceId, sealedBody, createdAt],
  );
  return entry;
}

/** A page of a session's sealed log after `after`, oldest first. */
async function listLog(pool: pg.Pool, table: LogTable, accountId: string, sessionId: string, after: number, limit: number) {
  const found = await rows<EventRow>(
    pool,
    `SELECT session_id, seq, generation, device_id, sealed_body, created_at FROM ${table}
     WHERE account_id = $1 AND session_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
    [accountId, sessionId, after, limit],
  );
  return found.map(toEvent);
}

const LOAD = `count(*)::int AS posts, COALESCE(sum(length(sealed_body)), 0)::bigint AS bytes, min(created_at) AS "oldestAt"`;

/** Counts the window's posts of the device (its row locked first) and of the session (locked by the caller), and refuses one past a cap. */
async function refuseOverPostCapIn(
  sql: Sql,
  post: { accountId: string; sessionId: string; deviceId: string; bytes: number; at: number },
  caps: PostCaps,
): Promise<void> {
  const since = post.at - caps.windowMs;
  await sql.query('SELECT 1 FROM devices WHERE id = $1 FOR UPDATE', [post.deviceId]);
  const device = await row<PostLoad>(sql, `SELECT ${LOAD} FROM session_answers WHERE device_id = $1 AND created_at > $2`, [
    post.deviceId,
    since,
  ]);
  const session = await row<PostLoad>(
    sql,
    `SELECT ${LOAD} FROM session_answers WHERE account_id = $1 AND session_id = $2 AND created_at > $3`,
    [post.accountId, post.sessionId, since],
  );
  refuseOverPostCap({ device: device!, session: session! }, caps, post.bytes, post.at);
}

/** The session half of the PostgreSQL store. */
export function postgresSessionStore(pool: pg.Pool, mutate: PgMutator): SessionStore {
  return {
    createSession(s, idem) {
      return mutate(idem, async (sql) => {
        if (await sessionRow(sql, s.accountId, s.id)) refuse('already_exists', 'this account already has a session with this id');
        const created = await row<SessionRow>(
          sql,
          `INSERT INTO sessions (id, account_id, owner_device_id, generation, sealed_meta, last_seq, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, 0, $6, $7) RETURNING ${SESSION_COLUMNS}`,
          [s.id, s.accountId, s.ownerDeviceId, s.generation, s.sealedMeta, s.createdAt, s.updatedAt],
        );
        return toSession(created!);
      });
    },
    async getSession(accountId, sessionId) {
      const r = await sessionRow(pool, accountId, sessionId);
      return r && toSession(r);
    },
    async listSessions(accountId) {
      const found = await rows<SessionRow>(pool, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE account_id = $1 ORDER BY created_at, seq`, [
        accountId,
      ]);
      return found.map(toSession);
    },
    updateSessionMeta({ accountId, sessionId, deviceId, generation, sealedMeta, at }, idem) {
      return mutate(idem, async (sql) => {
        fence(await sessionRow(sql, accountId, sessionId, true), deviceId, generation);
        const updated = await row<SessionRow>(
          sql,
          `UPDATE sessions SET sealed_meta = $1, updated_at = $2 WHERE account_id = $3 AND id = $4 RETURNING ${SESSION_COLUMNS}`,
          [sealedMeta, at, accountId, sessionId],
        );
        return toSession(updated!);
      });
    },
    appendEvent({ accountId, sessionId, deviceId, generation, sealedBody, at }, idem) {
      return mutate(idem, async (sql) => {
        fence(await sessionRow(sql, accountId, sessionId, true), deviceId, generation);
        const { last_seq: seq } = (await row<{ last_seq: number }>(
          sql,
          'UPDATE sessions SET last_seq = last_seq + 1 WHERE account_id = $1 AND id = $2 RETURNING last_seq',
          [accountId, sessionId],
        ))!;
        return insertLogEntry(sql, 'session_events', accountId, { sessionId, seq, generation, deviceId, sealedBody, createdAt: at });
      });
    },
    listEvents: (accountId, sessionId, after, limit) => listLog(pool, 'session_events', accountId, sessionId, after, limit),
    appendAnswer({ accountId, sessionId, deviceId, generation, sealedBody, at, caps }, idem) {
      return mutate(idem, async (sql) => {
        // The session row's lock orders the answers of one session; the device row's, one device's posts (counted below).
        fence(await sessionRow(sql, accountId, sessionId, true), null, generation);
        if (caps) await refuseOverPostCapIn(sql, { accountId, sessionId, deviceId, bytes: sealedBody.length, at }, caps);
        // The session keeps the last number handed out: a pruned log never hands one out twice.
        const { seq } = (await row<{ seq: number }>(
          sql,
          'UPDATE sessions SET answers_seq = answers_seq + 1 WHERE account_id = $1 AND id = $2 RETURNING answers_seq AS seq',
          [accountId, sessionId],
        ))!;
        return insertLogEntry(sql, 'session_answers', accountId, { sessionId, seq, generation, deviceId, sealedBody, createdAt: at });
      });
    },
    listAnswers: (accountId, sessionId, after, limit) => listLog(pool, 'session_answers', accountId, sessionId, after, limit),
    async markPostsTaken({ accountId, sessionId, deviceId, upTo }) {
      await pool.query(
        `UPDATE sessions SET answers_taken = least(greatest(answers_taken, $1), answers_seq)
         WHERE account_id = $2 AND id = $3 AND owner_device_id = $4 AND answers_taken < least($1, answers_seq)`,
        [upTo, accountId, sessionId, deviceId],
      );
    },
  };
}
