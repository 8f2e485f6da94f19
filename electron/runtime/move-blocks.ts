/**
 * A session's blocked move, kept as part of the session's state: the owner records it when
 * readiness refuses a Move (or the Move here another device asked for), when the re-check at the
 * checkpoint cancels one, or when the target's prepare refuses its checkout; it keeps it in the
 * session's record and appends it to the sealed event stream (the backend sees no content), so a
 * reload keeps it and every device shows it. A block is of the generation it was found at: once the
 * session has moved on it blocks nothing and is shown nowhere. A re-check that passes or a move that
 * starts clears it. It follows the runtime's changes (ports/changes.ts) for the handoffs this device
 * was the source of.
 */
import type { HandoffView } from '../../shared/device-api.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { ChangeListener, Changes, ChangeSink } from '../ports/changes.ts';
import type { Clock } from '../ports/clock.ts';
import type { MoveBlock } from '../ports/move-block.ts';
import type { DeviceViews } from './device-views.ts';
import type { SessionService } from './sessions/session-service.ts';

export interface MoveBlocksDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession'>;
  sessions: Pick<SessionService, 'append'>;
  /** A handoff record as the UI shows it (its blockers unsealed). */
  views: Pick<DeviceViews, 'handoff'>;
  clock: Clock;
  /** Told when a session's view changed (its blocked move). */
  changes: ChangeSink;
  log(message: string): void;
}

/** Whether two blocked moves say the same (when each was found aside). */
function sameBlock(a: MoveBlock | null, b: MoveBlock | null): boolean {
  const said = (block: MoveBlock | null) => (block === null ? null : { ...block, at: 0 });
  return JSON.stringify(said(a)) === JSON.stringify(said(b));
}

export class MoveBlocks implements ChangeListener {
  constructor(private readonly deps: MoveBlocksDeps) {}

  /** The session's blocked move at its generation now, or null (one of an earlier generation blocks nothing). */
  of(sessionId: string): MoveBlock | null {
    const session = this.deps.state.readSession(sessionId);
    const block = session?.moveBlock ?? null;
    return block !== null && block.generation === session?.generation ? block : null;
  }

  /**
   * What a readiness evaluation for moving to `targetDeviceId` says: blocked (recorded) or ready
   * (cleared). `askedBy`: the device that asked for it by Move here, if one did.
   */
  fromReport(sessionId: string, targetDeviceId: string, report: ReadinessReport, askedBy: string | null = null): void {
    if (report.ready) this.clear(sessionId);
    else
      this.record(sessionId, {
        targetDeviceId,
        blockers: report.blockers,
        foundBy: 'readiness',
        handoffId: null,
        at: report.evaluatedAt,
        askedBy,
      });
  }

  /** This device finished its part in a handoff: as its source, a cancel with blockers is the session's blocked move. */
  handoffEnded({ handoff, role }: Changes['handoffEnded']): void {
    if (role === 'source') this.fromCancelled(this.deps.views.handoff(handoff));
  }

  /**
   * A handoff this device was the source of ended cancelled with blockers (its own re-check at the
   * checkpoint, or the target's refusal of its checkout): they are the session's blocked move now.
   */
  private fromCancelled(handoff: HandoffView): void {
    if (handoff.state !== 'cancelled' || handoff.blockers.length === 0 || handoff.sourceDeviceId !== this.deps.selfId) return;
    const cancel = handoff.history.find((h) => h.state === 'cancelled');
    const byTarget = cancel?.deviceId === handoff.targetDeviceId;
    this.record(handoff.sessionId, {
      targetDeviceId: handoff.targetDeviceId,
      blockers: handoff.blockers,
      foundBy: byTarget ? 'target' : 'checkpoint',
      handoffId: handoff.id,
      at: cancel?.at ?? this.deps.clock(),
      askedBy: handoff.initiatorDeviceId === this.deps.selfId ? null : handoff.initiatorDeviceId,
    });
  }

  /** A move started, or a re-check passed: nothing blocks the session's move any more. */
  clear(sessionId: string): void {
    if ((this.deps.state.readSession(sessionId)?.moveBlock ?? null) !== null) this.record(sessionId, null);
  }

  /** Keeps `found` (or none) as the session's blocked move, at its generation now, and appends it, sealed, for every device. */
  private record(sessionId: string, found: Omit<MoveBlock, 'generation'> | null): void {
    const session = this.deps.state.readSession(sessionId);
    if (!session || session.ownerDeviceId !== this.deps.selfId) return;
    const block = found === null ? null : { ...found, generation: session.generation };
    if (sameBlock(session.moveBlock, block)) return;
    this.deps.state.updateSession(sessionId, (s) => {
      s.moveBlock = block;
    });
    this.deps.changes.emit('sessionChanged', { sessionId });
    void this.deps.sessions.append(sessionId, { type: 'move-block', block }).then((appended) => {
      if (!appended.ok) this.deps.log(`session ${sessionId}: its blocked move was not shared: ${appended.code}`);
    });
  }
}
