/**
 * The views the UI gets of this device's sessions and handoffs (views.ts builds each one): read
 * when the device API asks, and sent when they change — whole views once per turn of the event loop
 * (view-batch.ts), the transcript's new entries and a step's progress as they come. It follows the
 * runtime's changes (ports/changes.ts) as one listener. Nothing is built while nobody listens.
 */
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { HandoffView, SessionDetail, SessionView, TranscriptPage } from '../../shared/device-api.ts';
import { ok, type Result } from '../../shared/errors.ts';
import type { Coordinator } from '../handoff/coordinator.ts';
import type { LocalSession } from '../local-state/local-state.ts';
import type { ChangeListener, Changes } from '../ports/changes.ts';
import type { DeviceEvents } from './device-events.ts';
import type { SessionService } from './sessions/session-service.ts';
import { agentsShown } from './permissions/permission-book.ts';
import { ViewBatch, type ViewChanges } from './view-batch.ts';
import { handoffView, sessionDetail, sessionView, transcriptPage, type ViewDeps } from './views.ts';

export interface DeviceViewsDeps extends ViewDeps {
  sessions: Pick<SessionService, 'inputBlock' | 'pullEvents'>;
  handoffs: Pick<Coordinator, 'get' | 'forSession'>;
  events: Pick<DeviceEvents, 'emit' | 'listening'>;
}

export class DeviceViews implements ChangeListener {
  /** Snapshot views to send once the current turn ends. */
  private readonly batch = new ViewBatch((changes) => this.send(changes));

  constructor(private readonly deps: DeviceViewsDeps) {}

  /** Every session as listed. */
  sessions(): SessionView[] {
    return this.deps.state.readSessions().map((s) => sessionView(this.deps, s, this.deps.handoffs.forSession(s.id)));
  }

  /** A session's detail, with the events another device drove it to read in first; null for none. */
  async detail(sessionId: string): Promise<SessionDetail | null> {
    const session = this.deps.state.readSession(sessionId);
    if (!session) return null;
    if (session.ownerDeviceId !== this.deps.selfId) await this.deps.sessions.pullEvents(sessionId);
    return sessionDetail(this.deps, this.deps.state.readSession(sessionId)!, this.deps.handoffs.forSession(sessionId));
  }

  /** A page of a session's transcript; null for no such session. */
  transcript(sessionId: string, from: number, count: number): TranscriptPage | null {
    return this.deps.state.readSession(sessionId) ? transcriptPage(this.deps, sessionId, from, count) : null;
  }

  /** A session just made here, as listed (no handoff yet), or the failure that made none. */
  newSession(made: Result<LocalSession>): Result<SessionView> {
    return made.ok ? ok(sessionView(this.deps, made.value, [])) : made;
  }

  /** A handoff record as the UI shows it. */
  handoff(handoff: Handoff): HandoffView {
    return handoffView(this.deps, handoff);
  }

  /** A session's title as this device knows it (its id when it does not). */
  titleOf(sessionId: string): string {
    return this.deps.state.readSession(sessionId)?.title ?? sessionId;
  }

  /** The session's content or view changed: its whole detail, then the list (at the end of this turn). */
  sessionChanged({ sessionId }: Changes['sessionChanged']): void {
    if (this.deps.events.listening) this.batch.session(sessionId);
  }

  /** Only the transcript from `transcriptFrom` on and the agent map changed: just those (unless its whole detail is on its way). */
  sessionActivity({ sessionId, transcriptFrom }: Changes['sessionActivity']): void {
    const session = this.deps.state.readSession(sessionId);
    if (!session || !this.deps.events.listening || this.batch.sessionPending(sessionId)) return;
    this.deps.events.emit('sessionActivity', {
      sessionId,
      transcriptFrom,
      transcript: this.deps.state.transcriptPage(sessionId, transcriptFrom, Infinity),
      agents: agentsShown(session),
    });
  }

  /**
   * A handoff changed. A transition changes the session's view (owner, generation, input block),
   * never its transcript or agents: the list carries it without resending the whole session.
   */
  handoffChanged({ handoff }: Changes['handoffChanged']): void {
    this.batch.handoff(handoff.id);
  }

  /**
   * This device finished its part in an ended handoff: what it did last (a source parking the work it
   * carried) shows on the handoff's view, which is sent again.
   */
  handoffEnded({ handoff }: Changes['handoffEnded']): void {
    this.batch.handoff(handoff.id);
  }

  /** A step's progress, sent after the views of what changed before it (the handoff now at that step). */
  handoffProgress(view: Changes['handoffProgress']): void {
    this.batch.sendNow();
    this.deps.events.emit('handoffProgress', view);
  }

  /** Sends the views of what changed during a turn (view-batch.ts). */
  private send({ sessions, handoffs, list }: ViewChanges): void {
    if (!this.deps.events.listening) return;
    for (const sessionId of sessions) {
      const session = this.deps.state.readSession(sessionId);
      if (session) this.deps.events.emit('sessionChanged', sessionDetail(this.deps, session, this.deps.handoffs.forSession(sessionId)));
    }
    for (const handoffId of handoffs) {
      const handoff = this.deps.handoffs.get(handoffId);
      if (handoff) this.deps.events.emit('handoffChanged', handoffView(this.deps, handoff));
    }
    if (list) this.deps.events.emit('sessionsChanged', this.sessions());
  }
}
