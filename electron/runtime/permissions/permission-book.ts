/**
 * Folding a session's permission events into its record, the same way on the owner (as it asks and
 * settles) and on every other device (as it pulls the events in): a request joins the queue unless
 * it already ended, an outcome takes it out and is kept among the newest few.
 */
import type { AgentView } from '../../../shared/agents.ts';
import type { PermissionOutcomeView, PermissionRequestView } from '../../../shared/permission-views.ts';
import type { LocalSession } from '../../local-state/local-state.ts';
import { OUTCOMES_KEPT } from '../../local-state/session-permissions.ts';

/** Adds `request` to the session's queue (once; never one that has already ended). */
export function recordAsked(session: LocalSession, request: PermissionRequestView): void {
  const book = session.permissions;
  if (book.pending.some((p) => p.id === request.id) || book.outcomes.some((o) => o.requestId === request.id)) return;
  book.pending.push(request);
}

/** Takes the request out of the queue and keeps its outcome (the newest OUTCOMES_KEPT). */
export function recordSettled(session: LocalSession, outcome: PermissionOutcomeView): void {
  const book = session.permissions;
  book.pending = book.pending.filter((p) => p.id !== outcome.requestId);
  if (book.outcomes.some((o) => o.requestId === outcome.requestId)) return;
  book.outcomes = [...book.outcomes, outcome].slice(-OUTCOMES_KEPT);
}

/** Every request of a session stops being pending (it moved away from, or never reached, the device that asked). */
export function dropPending(session: LocalSession): PermissionRequestView[] {
  const dropped = session.permissions.pending;
  session.permissions.pending = [];
  return dropped;
}

/** How many ended requests a session's detail shows (the newest). */
const OUTCOMES_SHOWN = 5;

/** The requests that wait for an answer now: those asked at the session's generation (one of an earlier owner waits for nobody). */
export function pendingNow(session: Readonly<LocalSession>): PermissionRequestView[] {
  return session.permissions.pending.filter((request) => request.generation === session.generation);
}

/** The newest outcomes a session's detail shows. */
export function latestOutcomes(session: Readonly<LocalSession>): PermissionOutcomeView[] {
  return session.permissions.outcomes.slice(-OUTCOMES_SHOWN);
}

/** The agent map as shown: an agent with a pending request is `asking` (waiting for you). */
export function agentsShown(session: Readonly<LocalSession>): AgentView[] {
  const asking = new Set(pendingNow(session).map((request) => request.agent));
  if (asking.size === 0) return session.agents;
  return session.agents.map((agent) => (asking.has(agent.id) ? { ...agent, status: 'asking' } : agent));
}
