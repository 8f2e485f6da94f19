/**
 * The device's snapshot events to its UI, sent once per turn of the event loop. A step of a move
 * changes a handoff, the session it moves and the list of sessions several times in one turn (the
 * transition's answer, the push of the same record, an input block); each of those is a whole view,
 * so only the last one matters. What changed is collected here and, once the turn ends, sent as it
 * then is: each session's detail, each handoff, then the list once. Events that carry a delta
 * (transcript activity, progress) are not batched; a session's activity while its detail waits here
 * is not sent at all, since the detail will carry it, and a step's progress is sent after what waits
 * here (`sendNow`), so the UI knows the step before it hears how far it got.
 */

/** What changed since the last send: session ids, handoff ids, and whether the list did. */
export interface ViewChanges {
  sessions: ReadonlySet<string>;
  handoffs: ReadonlySet<string>;
  list: boolean;
}

export class ViewBatch {
  private sessions = new Set<string>();
  private handoffs = new Set<string>();
  private list = false;
  private scheduled = false;

  /** `send` builds and sends the views of what changed (called at most once per turn). */
  constructor(private readonly send: (changes: ViewChanges) => void) {}

  /** The session's detail changed (and so did the list, which carries its view). */
  session(sessionId: string): void {
    this.sessions.add(sessionId);
    this.sessionList();
  }

  /** The handoff changed (and so did the list: a transition changes its session's view). */
  handoff(handoffId: string): void {
    this.handoffs.add(handoffId);
    this.sessionList();
  }

  /** Whether the session's detail is about to be sent (so a delta of it now would be sent twice). */
  sessionPending(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Only the list of session views changed. */
  sessionList(): void {
    this.list = true;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends what changed at once, when anything did (before an event that must follow it). */
  sendNow(): void {
    this.flush();
  }

  private flush(): void {
    // Sent already (sendNow) since it was scheduled: nothing is left for this turn's end.
    if (!this.scheduled) return;
    const changes: ViewChanges = { sessions: this.sessions, handoffs: this.handoffs, list: this.list };
    this.sessions = new Set();
    this.handoffs = new Set();
    this.list = false;
    this.scheduled = false;
    this.send(changes);
  }
}
