/** Sessions and their sealed event log; every write is fenced by owner and generation. */
import { fail, ok } from '../../shared/errors.ts';
import type { Session, SessionAnswer, SessionEvent } from '../../shared/api/sessions.ts';
import { answer, idemWrite, type Answer, type Call, type Deps } from './context.ts';

/** Loads a session of the caller's account, or undefined (another account's session does not exist). */
async function ownSession(deps: Deps, accountId: string, sessionId: string): Promise<Session | undefined> {
  return deps.store.getSession(accountId, sessionId);
}

const notFound = () => fail('not_found', 'no such session');

/** Creates a session owned by the caller at generation 1. */
export async function createSession(deps: Deps, { caller, body, idem }: Call<'createSession'>): Answer<'createSession'> {
  const at = deps.clock();
  const session: Session = {
    id: body.sessionId,
    accountId: caller.accountId,
    ownerDeviceId: caller.id,
    generation: 1,
    sealedMeta: body.sealedMeta,
    createdAt: at,
    updatedAt: at,
  };
  const wrap = (value: Session) => ({ session: value });
  const result = await deps.store.createSession(session, idemWrite(idem, wrap));
  if (result.ok) deps.push.publish(caller.accountId, { type: 'session', session: result.value });
  return answer(result, wrap);
}

/** The account's sessions. */
export async function listSessions(deps: Deps, { caller }: Call<'listSessions'>): Answer<'listSessions'> {
  return ok({ sessions: await deps.store.listSessions(caller.accountId) });
}

/** One session of the account. */
export async function getSession(deps: Deps, { caller, params }: Call<'getSession'>): Answer<'getSession'> {
  const session = await ownSession(deps, caller.accountId, params.sessionId!);
  return session ? ok({ session }) : notFound();
}

/** Replaces the sealed metadata; only the owner at the current generation may. */
export async function updateSessionMeta(
  deps: Deps,
  { caller, params, body, idem }: Call<'updateSessionMeta'>,
): Answer<'updateSessionMeta'> {
  if (!(await ownSession(deps, caller.accountId, params.sessionId!))) return notFound();
  const wrap = (session: Session) => ({ session });
  const input = {
    accountId: caller.accountId,
    sessionId: params.sessionId!,
    deviceId: caller.id,
    generation: body.generation,
    sealedMeta: body.sealedMeta,
    at: deps.clock(),
  };
  const result = await deps.store.updateSessionMeta(input, idemWrite(idem, wrap));
  if (result.ok) deps.push.publish(caller.accountId, { type: 'session', session: result.value });
  return answer(result, wrap);
}

/** What a sealed-log append (an event, an answer) gives the store: the caller, the session, the generation it claims, the body. */
function logInput(deps: Deps, call: Call<'appendEvent'> | Call<'postAnswer'>) {
  const { caller, params, body } = call;
  return {
    accountId: caller.accountId,
    sessionId: params.sessionId!,
    deviceId: caller.id,
    generation: body.generation,
    sealedBody: body.sealedBody,
    at: deps.clock(),
  };
}

/** Appends a sealed event; only the owner at the current generation may. */
export async function appendEvent(deps: Deps, call: Call<'appendEvent'>): Answer<'appendEvent'> {
  if (!(await ownSession(deps, call.caller.accountId, call.params.sessionId!))) return notFound();
  const wrap = (event: SessionEvent) => ({ event });
  const result = await deps.store.appendEvent(logInput(deps, call), idemWrite(call.idem, wrap));
  if (result.ok)
    deps.push.publish(call.caller.accountId, { type: 'session-event', sessionId: result.value.sessionId, seq: result.value.seq });
  return answer(result, wrap);
}

/** Events after a cursor, oldest first; `nextCursor` is the last seq returned (or the given cursor). */
export async function listEvents(deps: Deps, { caller, params, query }: Call<'listEvents'>): Answer<'listEvents'> {
  if (!(await ownSession(deps, caller.accountId, params.sessionId!))) return notFound();
  const after = query.after ?? 0;
  const events = await deps.store.listEvents(caller.accountId, params.sessionId!, after, query.limit ?? 100);
  return ok({ events, nextCursor: events.at(-1)?.seq ?? after });
}

/**
 * Stores a sealed post for the session's owner (an answer to a permission request, a Move here
 * request); any device of the account may, at the session's current generation, within the post caps.
 */
export async function postAnswer(deps: Deps, call: Call<'postAnswer'>): Answer<'postAnswer'> {
  if (!(await ownSession(deps, call.caller.accountId, call.params.sessionId!))) return notFound();
  const { postWindowMs: windowMs, maxPostsPerDevice, maxPostBytesPerDevice, maxPostsPerSession, maxPostBytesPerSession } = deps.limits;
  const caps = { windowMs, maxPostsPerDevice, maxPostBytesPerDevice, maxPostsPerSession, maxPostBytesPerSession };
  const wrap = (value: SessionAnswer) => ({ answer: value });
  const result = await deps.store.appendAnswer({ ...logInput(deps, call), caps }, idemWrite(call.idem, wrap));
  if (result.ok)
    deps.push.publish(call.caller.accountId, { type: 'session-answer', sessionId: result.value.sessionId, seq: result.value.seq });
  return answer(result, wrap);
}

/**
 * Answers after a cursor, oldest first; `nextCursor` is the last seq returned (or the given cursor).
 * The owner reads from its cursor: what is before it has been taken, and may be pruned.
 */
export async function listAnswers(deps: Deps, { caller, params, query }: Call<'listAnswers'>): Answer<'listAnswers'> {
  const session = await ownSession(deps, caller.accountId, params.sessionId!);
  if (!session) return notFound();
  const after = query.after ?? 0;
  if (after > 0 && session.ownerDeviceId === caller.id)
    await deps.store.markPostsTaken({ accountId: caller.accountId, sessionId: session.id, deviceId: caller.id, upTo: after });
  const answers = await deps.store.listAnswers(caller.accountId, params.sessionId!, after, query.limit ?? 100);
  return ok({ answers, nextCursor: answers.at(-1)?.seq ?? after });
}
