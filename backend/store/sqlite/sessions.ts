/** Sessions and their fenced, append-only event log in SQLite. */
import type Database from 'better-sqlite3';
import type { PostLoad, SessionStore } from '../store.ts';
import { refuse, toEvent, toSession, type EventRow, type SessionRow } from '../rows.ts';
import { fence, refuseOverPostCap } from '../rules.ts';
import type { Mutator } from './mutator.ts';

/** The session half of the SQLite store. */
export function sqliteSessionStore(db: Database.Database, mutate: Mutator): SessionStore {
  const q = {
    session: db.prepare('SELECT * FROM sessions WHERE account_id = ? AND id = ?'),
    sessions: db.prepare('SELECT * FROM sessions WHERE account_id = ? ORDER BY created_at, rowid'),
    insert: db.prepare(`INSERT INTO sessions (id, account_id, owner_device_id, generation, sealed_meta, last_seq, created_at, updated_at)
      VALUES (@id, @accountId, @ownerDeviceId, @generation, @sealedMeta, 0, @createdAt, @updatedAt)`),
    meta: db.prepare(
      'UPDATE sessions SET sealed_meta = ?, updated_at = ? WHERE account_id = ? AND id = ? AND generation = ? AND owner_device_id = ?',
    ),
    bumpSeq: db.prepare(
      `UPDATE sessions SET last_seq = last_seq + 1 WHERE account_id = ? AND id = ? AND generation = ? AND owner_device_id = ?
       RETURNING last_seq`,
    ),
    insertEvent: db.prepare(
      `INSERT INTO session_events (account_id, session_id, seq, generation, device_id, sealed_body, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    events: db.prepare('SELECT * FROM session_events WHERE account_id = ? AND session_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
    // The session keeps the last number handed out: a pruned log never hands one out twice.
    nextAnswer: db
      .prepare('UPDATE sessions SET answers_seq = answers_seq + 1 WHERE account_id = ? AND id = ? RETURNING answers_seq')
      .pluck(),
    load: db.prepare(
      `SELECT count(*) AS posts, COALESCE(SUM(LENGTH(sealed_body)), 0) AS bytes, MIN(created_at) AS oldestAt
       FROM session_answers WHERE device_id = ? AND created_at > ?`,
    ),
    sessionLoad: db.prepare(
      `SELECT count(*) AS posts, COALESCE(SUM(LENGTH(sealed_body)), 0) AS bytes, MIN(created_at) AS oldestAt
       FROM session_answers WHERE account_id = ? AND session_id = ? AND created_at > ?`,
    ),
    takenBefore: db
      .prepare('SELECT min(?, answers_seq) > answers_taken FROM sessions WHERE account_id = ? AND id = ? AND owner_device_id = ?')
      .pluck(),
    taken: db.prepare(
      'UPDATE sessions SET answers_taken = min(max(answers_taken, ?), answers_seq) WHERE account_id = ? AND id = ? AND owner_device_id = ?',
    ),
    insertAnswer: db.prepare(
      `INSERT INTO session_answers (account_id, session_id, seq, generation, device_id, sealed_body, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    answers: db.prepare('SELECT * FROM session_answers WHERE account_id = ? AND session_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
  };
  const session = (accountId: string, id: string) => q.session.get(accountId, id) as SessionRow | undefined;

  return {
    async createSession(s, idem) {
      return mutate(idem, () => {
        if (session(s.accountId, s.id)) refuse('already_exists', 'this account already has a session with this id');
        q.insert.run(s);
        return toSession(session(s.accountId, s.id)!);
      });
    },
    async getSession(accountId, sessionId) {
      const row = session(accountId, sessionId);
      return row && toSession(row);
    },
    async listSessions(accountId) {
      return (q.sessions.all(accountId) as SessionRow[]).map(toSession);
    },
    async updateSessionMeta({ accountId, sessionId, deviceId, generation, sealedMeta, at }, idem) {
      return mutate(idem, () => {
        fence(session(accountId, sessionId), deviceId, generation);
        q.meta.run(sealedMeta, at, accountId, sessionId, generation, deviceId);
        return toSession(session(accountId, sessionId)!);
      });
    },
    async appendEvent({ accountId, sessionId, deviceId, generation, sealedBody, at }, idem) {
      return mutate(idem, () => {
        fence(session(accountId, sessionId), deviceId, generation);
        const { last_seq: seq } = q.bumpSeq.get(accountId, sessionId, generation, deviceId) as { last_seq: number };
        q.insertEvent.run(accountId, sessionId, seq, generation, deviceId, sealedBody, at);
        return { sessionId, seq, generation, deviceId, sealedBody, createdAt: at };
      });
    },
    async listEvents(accountId, sessionId, after, limit) {
      return (q.events.all(accountId, sessionId, after, limit) as EventRow[]).map(toEvent);
    },
    async appendAnswer({ accountId, sessionId, deviceId, generation, sealedBody, at, caps }, idem) {
      return mutate(idem, () => {
        fence(session(accountId, sessionId), null, generation);
        if (caps) {
          const since = at - caps.windowMs;
          const load = {
            device: q.load.get(deviceId, since) as PostLoad,
            session: q.sessionLoad.get(accountId, sessionId, since) as PostLoad,
          };
          refuseOverPostCap(load, caps, sealedBody.length, at);
        }
        const seq = q.nextAnswer.get(accountId, sessionId) as number;
        q.insertAnswer.run(accountId, sessionId, seq, generation, deviceId, sealedBody, at);
        return { sessionId, seq, generation, deviceId, sealedBody, createdAt: at };
      });
    },
    async listAnswers(accountId, sessionId, after, limit) {
      return (q.answers.all(accountId, sessionId, after, limit) as EventRow[]).map(toEvent);
    },
    async markPostsTaken({ accountId, sessionId, deviceId, upTo }) {
      // Most reads take nothing new: they write nothing either.
      if (q.takenBefore.get(upTo, accountId, sessionId, deviceId) !== 1) return;
      const result = await mutate(undefined, () => q.taken.run(upTo, accountId, sessionId, deviceId));
      if (!result.ok) throw new Error(result.message);
    },
  };
}
