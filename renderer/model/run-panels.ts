/**
 * The run view's panels, derived, pure and testable: the blocked (or ready) alert, the note under
 * Move here, how the last move ended with its drift line, and what this page said of its own last
 * act. Each is computed from the session's current owner, generation, handoff and blocked move,
 * with what this page remembers of its own acts (a Move's refusal, a Move here asked, a remediation's
 * fresh evaluation) taken only while the session is still at the owner and generation that act was
 * made at — so a panel never outlives the state it describes, on any device, and a button acts only
 * on the state it was drawn for (movedOnSince).
 */
import type { CarryChoice } from '../../shared/carry.ts';
import type { HandoffView, MoveBlockView, SessionView } from '../../shared/device-api.ts';
import { reachedAt } from '../../shared/handoff-states.ts';
import type { ProviderId } from '../../shared/provider.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import { isTargetBlocker } from './readiness-words.ts';

/** The state a panel was drawn for, or an act made at: the session's owner, generation and move under way (if any) then. */
export interface Stamp {
  ownerDeviceId: string;
  generation: number;
  /** The move under way then, or null. */
  handoffId: string | null;
}

type Stamped = Pick<SessionView, 'ownerDeviceId' | 'generation' | 'activeHandoff'>;

/** The stamp of `session` now. */
export function stampOf(session: Stamped): Stamp {
  return { ownerDeviceId: session.ownerDeviceId, generation: session.generation, handoffId: session.activeHandoff?.id ?? null };
}

/** Whether `session` is still at `stamp` (same owner, same generation, the same move under way or none). */
export function isAt(session: Stamped, stamp: Stamp): boolean {
  return (
    session.ownerDeviceId === stamp.ownerDeviceId &&
    session.generation === stamp.generation &&
    (session.activeHandoff?.id ?? null) === stamp.handoffId
  );
}

/** A blocked move: the session's kept one, or what this page learnt of its own Move; stamped with the state it is of. */
export interface BlockedMove {
  stamp: Stamp;
  targetDeviceId: string;
  targetName: string;
  /** The agent the move chose to continue with, when the person picked one (a summary continuation). */
  provider?: ProviderId;
  /** Whether it carries the work (Carry my changes), when the person chose (absent: this device's default). */
  carry?: CarryChoice | null;
  /** The last evaluation (its `ready` turns true once every item is fixed). */
  report: ReadinessReport;
  /** The last remediation's refusal, if any. */
  actionError: string | null;
  /** The device that asked for it by Move here (its target), or null: the owner's own Move. */
  askedBy: string | null;
  /** The handoff whose cancel found the blockers, when one had begun. */
  handoffId: string | null;
}

/** What this page remembers of its own acts on one session, each with the state it was made at. */
export interface PageMemory {
  blocked?: BlockedMove | undefined;
  /** When the blocked move the user put away was evaluated: an alert no newer stays away. */
  dismissed?: number | undefined;
  /** This device asked the owner to move the session here (Move here). */
  asked?: { stamp: Stamp; at: number } | undefined;
  /** What this page said of its last act that did not go through (a refusal, or that the session moved on). */
  said?: { stamp: Stamp; text: string; ownerOffline: boolean } | undefined;
}

/** The blocked alert as the run view draws it. */
export interface BlockedPanel extends BlockedMove {
  /** The device that runs the session and found the blockers. */
  sourceName: string;
  ready: boolean;
  /** For each blocker of `report`, where its fix is made: null on this device, else that device's name. */
  fixOn: (string | null)[];
  /** This device runs the session: Check again and Move now start the move here; elsewhere they ask the owner. */
  ownedHere: boolean;
  /** This device is where the move goes. */
  toHere: boolean;
  /** A Move here: the owner moves the session on its own once nothing blocks it. */
  movesOnItsOwn: boolean;
}

/** The note under Move here while the owner has not answered: nothing blocks yet, no move started. */
export interface AskedNote {
  ownerName: string;
  at: number;
  /** Longer ago than the owner acts on a request (it will not act on it any more). */
  late: boolean;
}

/** How the session's last move ended, when it still describes where the session is. */
export interface LastMovePanel {
  kind: 'completed' | 'failed' | 'cancelled';
  handoff: HandoffView;
  arrivedHere: boolean;
  /** Completed here: the drift found on arrival ('differs'), none ('matched'), or nothing to say now (null). */
  drift: 'matched' | 'differs' | null;
  /** Cancelled before the transfer and this device still runs it: Try again. */
  canRetry: boolean;
}

export interface RunPanels {
  blocked: BlockedPanel | null;
  asked: AskedNote | null;
  lastMove: LastMovePanel | null;
  /** What this page said of its last act, while it still holds. */
  said: string | null;
}

/** How much this device knows about the others: their ids, names and whether each is offline now. */
export interface Known {
  selfId: string | null;
  /** Whether a device is known offline now. */
  offline(deviceId: string): boolean;
  /** How long a Move here request is acted on (the owner refuses older ones). */
  askAnsweredWithinMs: number;
}

/** The session's kept blocked move as this page holds one: its blockers as an evaluation made when they were found. */
export function fromKept(kept: MoveBlockView): BlockedMove {
  const report = { ready: kept.blockers.length === 0, blockers: kept.blockers, repos: [], evaluatedAt: kept.at };
  return {
    stamp: { ownerDeviceId: kept.sourceDeviceId, generation: kept.generation, handoffId: null },
    targetDeviceId: kept.targetDeviceId,
    targetName: kept.targetName,
    report,
    actionError: null,
    askedBy: kept.askedBy,
    handoffId: kept.handoffId,
  };
}

/** Whether a blocked move is of the session as it is now: its owner and generation, and a target elsewhere. */
function holds(session: SessionView, blocked: BlockedMove | undefined): blocked is BlockedMove {
  return blocked !== undefined && isAt(session, blocked.stamp) && blocked.targetDeviceId !== session.ownerDeviceId;
}

/** Where the fix of `blocker` is made: on the target for the target's own, else on the owner; null when that is this device. */
function fixPlace(blocker: Blocker, blocked: BlockedMove, session: SessionView, selfId: string | null): string | null {
  const onTarget = isTargetBlocker(blocker);
  const deviceId = onTarget ? blocked.targetDeviceId : session.ownerDeviceId;
  if (deviceId === selfId) return null;
  return onTarget ? blocked.targetName : session.ownerName;
}

/**
 * The blocked move to show: the session's kept one or this page's own, whichever was evaluated
 * later, of the session as it is now; none while a move runs or once the user put that one away.
 */
export function blockedPanel(session: SessionView, memory: PageMemory, known: Pick<Known, 'selfId'>): BlockedPanel | null {
  if (session.activeHandoff !== null) return null;
  const kept = session.blocked ? fromKept(session.blocked) : undefined;
  const candidates = [memory.blocked, kept].filter((b): b is BlockedMove => holds(session, b));
  const newest = candidates.sort((a, b) => b.report.evaluatedAt - a.report.evaluatedAt)[0];
  if (!newest || (memory.dismissed !== undefined && newest.report.evaluatedAt <= memory.dismissed)) return null;
  const ready = newest.report.blockers.length === 0;
  return {
    ...newest,
    sourceName: session.ownerName,
    ready,
    fixOn: newest.report.blockers.map((blocker) => fixPlace(blocker, newest, session, known.selfId)),
    ownedHere: session.ownerDeviceId === known.selfId,
    toHere: newest.targetDeviceId === known.selfId,
    movesOnItsOwn: newest.askedBy !== null && newest.askedBy === newest.targetDeviceId,
  };
}

/** The note under Move here: asked at the session's owner and generation now, and neither answered by a move nor shown blocked (the alert says what waits). */
export function askedNote(
  session: SessionView,
  memory: PageMemory,
  blocked: BlockedPanel | null,
  known: Known,
  now: number,
): AskedNote | null {
  const asked = memory.asked;
  if (!asked || session.ownerDeviceId === known.selfId || session.activeHandoff !== null || !isAt(session, asked.stamp)) return null;
  if (blocked !== null) return null;
  return { ownerName: session.ownerName, at: asked.at, late: now - asked.at > known.askAnsweredWithinMs };
}

/**
 * How the last move ended, while that still says where the session is: completed or failed after
 * the transfer while its target owns it at the generation the move made; cancelled before the
 * transfer while its source still owns it at the move's generation. A cancel whose blockers the
 * blocked alert shows is said there only.
 */
export function lastMovePanel(session: SessionView, blocked: BlockedPanel | null, known: Pick<Known, 'selfId'>): LastMovePanel | null {
  const handoff = session.lastHandoff;
  if (!handoff || session.activeHandoff !== null) return null;
  const arrivedHere = handoff.targetDeviceId === known.selfId;
  const transferred = handoff.state === 'completed' || reachedAt(handoff.history, 'ownership-transferred') !== undefined;
  if (transferred) {
    if (session.ownerDeviceId !== handoff.targetDeviceId || session.generation !== handoff.generation + 1) return null;
    const completed = handoff.state === 'completed';
    const drift = !completed || !arrivedHere ? null : handoff.driftWarnings.length > 0 ? 'differs' : blocked === null ? 'matched' : null;
    return { kind: completed ? 'completed' : 'failed', handoff, arrivedHere, drift, canRetry: false };
  }
  if (session.ownerDeviceId !== handoff.sourceDeviceId || session.generation !== handoff.generation) return null;
  if (blocked !== null && blocked.handoffId === handoff.id) return null;
  const canRetry = session.ownerDeviceId === known.selfId && session.condition === 'owned';
  return { kind: 'cancelled', handoff, arrivedHere, drift: null, canRetry };
}

/** What this page said of its last act, while the session is still where it was said (and an owner said offline still is). */
export function saidNow(session: SessionView, memory: PageMemory, known: Pick<Known, 'offline'>): string | null {
  const said = memory.said;
  if (!said || !isAt(session, said.stamp)) return null;
  if (said.ownerOffline && !known.offline(session.ownerDeviceId)) return null;
  return said.text;
}

/** Every panel of the run view of `session` on this device, from its state now and this page's memory. */
export function runPanels(session: SessionView, memory: PageMemory, known: Known, now: number): RunPanels {
  const blocked = blockedPanel(session, memory, known);
  return {
    blocked,
    asked: askedNote(session, memory, blocked, known, now),
    lastMove: lastMovePanel(session, blocked, known),
    said: saidNow(session, memory, known),
  };
}

/**
 * Why a button drawn at `stamp` must not act now, in a sentence that says what changed, or null
 * when the session is still there (same owner, same generation, the same move under way or none).
 */
export function movedOnSince(stamp: Stamp, session: SessionView, selfId: string | null): string | null {
  if (isAt(session, stamp)) return null;
  if (session.activeHandoff !== null && session.generation === stamp.generation)
    return 'A move of the session started meanwhile, so nothing was done; follow it under Ownership.';
  if (session.generation === stamp.generation && session.ownerDeviceId === stamp.ownerDeviceId)
    return 'The move under way ended meanwhile, so nothing was done; see how under Ownership.';
  const where = session.ownerDeviceId === selfId ? 'this device' : session.ownerName;
  return `The session moved meanwhile and now runs on ${where} (generation ${session.generation}), so nothing was done.`;
}
