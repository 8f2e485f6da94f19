/**
 * The desktop notifications of a move, decided once on the device for both hosts (the Electron shell
 * shows them with Electron's Notification, the headless UI with the browser's): a move completed, a
 * move was blocked (readiness refused it when asked, or when the checkpoint was taken, or the target
 * could not take it), and a session left needing attention by a failed activation. Each names the
 * session and the device. MoveNotices tells a handoff's as this device finishes its part in it (it
 * follows the runtime's changes, ports/changes.ts); the move service tells a Move readiness refused.
 */
import type { HandoffView, MoveNoticeView } from '../../shared/device-api.ts';
import { reachedAt } from '../../shared/handoff-states.ts';
import type { Blocker } from '../../shared/readiness.ts';
import type { ChangeListener, Changes } from '../ports/changes.ts';
import type { Clock } from '../ports/clock.ts';
import type { DeviceEvents } from './device-events.ts';
import type { DeviceViews } from './device-views.ts';

const quoted = (title: string) => `“${title}”`;

/** The first blocker's sentence, and how many more there are. */
function firstOf(blockers: readonly Blocker[]): string {
  const [first] = blockers;
  if (!first) return 'it is not ready to move';
  const more = blockers.length > 1 ? ` (and ${blockers.length - 1} more)` : '';
  return `${first.message.replace(/\.$/, '')}${more}`;
}

/**
 * The notice for a handoff this device has just finished its part in, as `role`; null when there is
 * nothing to tell (a move the user cancelled, or the other device's side of a failure).
 */
export function endedNotice(handoff: HandoffView, role: 'source' | 'target', title: string, at: number): MoveNoticeView | null {
  const base = { sessionId: handoff.sessionId, handoffId: handoff.id, at };
  if (handoff.state === 'completed') {
    const body = `${quoted(title)} is now on ${handoff.targetName} (moved from ${handoff.sourceName}).`;
    return { ...base, kind: 'completed', title: 'Move completed', body };
  }
  if (handoff.state !== 'cancelled') return null;
  const reason = handoff.cancelReason;
  if (reachedAt(handoff.history, 'ownership-transferred') !== undefined) {
    if (role !== 'target') return null;
    const why = reason ? `${reason.message.replace(/\.$/, '')} (${reason.code})` : 'its activation failed';
    return {
      ...base,
      kind: 'attention',
      title: 'Needs attention',
      body: `${quoted(title)} needs attention on ${handoff.targetName}: ${why}.`,
    };
  }
  if (role !== 'source' || reason?.code === 'user_cancelled') return null;
  const why = handoff.blockers.length > 0 ? firstOf(handoff.blockers) : (reason?.message.replace(/\.$/, '') ?? 'it was cancelled');
  return {
    ...base,
    kind: 'blocked',
    title: 'Move blocked',
    body: `${quoted(title)} stays on ${handoff.sourceName}; moving it to ${handoff.targetName} is blocked: ${why}.`,
  };
}

/** The notice for a Move refused by readiness before anything moved. */
export function blockedNotice(
  move: { sessionId: string; title: string; sourceName: string; targetName: string; blockers: readonly Blocker[] },
  at: number,
): MoveNoticeView {
  return {
    kind: 'blocked',
    sessionId: move.sessionId,
    handoffId: null,
    title: 'Move blocked',
    body: `${quoted(move.title)} stays on ${move.sourceName}; moving it to ${move.targetName} is blocked: ${firstOf(move.blockers)}.`,
    at,
  };
}

export interface MoveNoticesDeps {
  views: Pick<DeviceViews, 'handoff' | 'titleOf'>;
  events: Pick<DeviceEvents, 'emit'>;
  clock: Clock;
}

/** The notice of each handoff this device has just finished its part in, when there is one to tell. */
export class MoveNotices implements ChangeListener {
  constructor(private readonly deps: MoveNoticesDeps) {}

  handoffEnded({ handoff, role }: Changes['handoffEnded']): void {
    const { views, events, clock } = this.deps;
    const notice = endedNotice(views.handoff(handoff), role, views.titleOf(handoff.sessionId), clock());
    if (notice) events.emit('moveNotice', notice);
  }
}
