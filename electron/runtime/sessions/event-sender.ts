/**
 * Sending a session's events: the owner appends each transcript entry and agent map as a sealed
 * event fenced by its generation, and re-seals the session metadata when it changes. A stale
 * refusal (`stale_generation`, `not_owner`) means the session moved: the sender says so and the
 * session service stops driving it.
 */
import type { TranscriptEntry } from '../../../shared/agents.ts';
import { fail, ok, type ActionResult } from '../../../shared/errors.ts';
import { newId } from '../../crypto/new-id.ts';
import type { LocalState } from '../../local-state/local-state.ts';
import type { BackendPort } from '../../ports/backend.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { Clock } from '../../ports/clock.ts';
import type { SealPort } from '../../ports/seal.ts';
import type { SessionEventBody } from './session-events.ts';
import { metaOf, sealSessionMeta, type SessionMeta } from './session-meta.ts';

const STALE_CODES = new Set(['stale_generation', 'not_owner']);

/** The longest a session's appends are held (holdAppends), whatever they wait for. */
export const APPEND_HOLD_MAX_MS = 30_000;

/**
 * A session's appends on their way at once, at most: the others wait as their events, unsealed, not
 * as requests (an agent flooding its transcript up to its turn's cap costs entries, not sockets).
 */
export const APPENDS_IN_FLIGHT = 8;

export interface EventSenderDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession' | 'transcriptCount' | 'appendTranscript'>;
  backend: Pick<BackendPort, 'appendEvent' | 'updateSessionMeta'>;
  seal: Pick<SealPort, 'sealJson'>;
  clock: Clock;
  /** Where this part tells what it changed (a session's view, or only its transcript). */
  changes: ChangeSink;
  /** The backend refused an append or a metadata update as stale: this device no longer owns the session. */
  moved(sessionId: string): Promise<void>;
}

export class EventSender {
  /** Sessions whose event appends wait (holdAppends): until when. */
  private readonly appendsHeld = new Map<string, Promise<unknown>>();
  /** What the backend holds of each session's metadata, as this process last published it: [generation, meta] as JSON. */
  private readonly publishedMeta = new Map<string, string>();
  /** Each session's appends on their way, and those waiting for one of them to end, in order. */
  private readonly sending = new Map<string, { count: number; waiting: (() => void)[] }>();

  constructor(private readonly deps: EventSenderDeps) {}

  /**
   * Holds the appends of `sessionId`'s events until `until` settles, or APPEND_HOLD_MAX_MS at most;
   * they are sent after, in order. A target holds what its resumed provider writes until the move's
   * last transition is recorded: an append reaching the backend just before `completed` had its commit
   * (an fsync) go first.
   */
  holdAppends(sessionId: string, until: Promise<unknown>): void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, APPEND_HOLD_MAX_MS)));
    timer?.unref();
    const held = Promise.race([until, limit])
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        if (this.appendsHeld.get(sessionId) === held) this.appendsHeld.delete(sessionId);
      });
    this.appendsHeld.set(sessionId, held);
  }

  /** Appends one sealed event at this device's generation; a stale refusal marks the session moved. */
  async append(sessionId: string, event: SessionEventBody): Promise<ActionResult> {
    const held = this.appendsHeld.get(sessionId);
    if (held) await held;
    const release = await this.slot(sessionId);
    try {
      return await this.send(sessionId, event);
    } finally {
      release();
    }
  }

  /** Waits for one of the session's APPENDS_IN_FLIGHT places; resolves with its release, which hands it to the next waiting. */
  private async slot(sessionId: string): Promise<() => void> {
    const places = this.sending.get(sessionId) ?? { count: 0, waiting: [] };
    this.sending.set(sessionId, places);
    if (places.count < APPENDS_IN_FLIGHT) places.count += 1;
    else await new Promise<void>((resolve) => places.waiting.push(resolve));
    return () => {
      const next = places.waiting.shift();
      if (next) return next();
      places.count -= 1;
      if (places.count === 0) this.sending.delete(sessionId);
    };
  }

  /** Seals and appends one event at this device's generation now. */
  private async send(sessionId: string, event: SessionEventBody): Promise<ActionResult> {
    // Read without copying (this runs for every transcript entry); owner and generation are taken now.
    const session = this.deps.state.readSession(sessionId);
    if (!session || session.ownerDeviceId !== this.deps.selfId) return fail('not_owner', 'This device does not own the session.');
    const sealed = this.deps.seal.sealJson(event, { kind: 'session-event', sessionId });
    const result = await this.deps.backend.appendEvent(sessionId, session.generation, sealed);
    if (result.ok) {
      this.deps.state.updateSession(
        sessionId,
        (s) => {
          s.eventCursor = Math.max(s.eventCursor, result.value.seq);
        },
        false,
      );
      return ok(undefined);
    }
    if (STALE_CODES.has(result.code)) await this.deps.moved(sessionId);
    return fail(result.code, result.message);
  }

  /** Records that the backend holds `meta` of the session at `generation` (it was just created with it). */
  published(sessionId: string, generation: number, meta: SessionMeta): void {
    this.publishedMeta.set(sessionId, JSON.stringify([generation, meta]));
  }

  /**
   * Re-seals and stores the session metadata (owner only, fenced by generation); metadata this
   * process already published at this generation is on the backend as it is, and is not sent again.
   */
  async publishMeta(sessionId: string): Promise<ActionResult> {
    const s = this.deps.state.readSession(sessionId);
    if (!s) return fail('not_found', 'No such session.');
    const meta = metaOf(s);
    const published = JSON.stringify([s.generation, meta]);
    if (this.publishedMeta.get(sessionId) === published) return ok(undefined);
    const result = await this.deps.backend.updateSessionMeta(sessionId, s.generation, sealSessionMeta(this.deps.seal, sessionId, meta));
    if (result.ok) {
      this.publishedMeta.set(sessionId, published);
      return ok(undefined);
    }
    if (STALE_CODES.has(result.code)) await this.deps.moved(sessionId);
    return fail(result.code, result.message);
  }

  /** Adds a Baton note (a system entry of the main agent) to the transcript and appends it. */
  note(sessionId: string, text: string): void {
    this.appendEntry(sessionId, { id: `baton-${newId()}`, at: this.deps.clock(), role: 'system', agentId: 'main', text });
  }

  /** Adds one entry to the transcript, appends it to the backend and reports the activity. */
  appendEntry(sessionId: string, entry: TranscriptEntry): void {
    if (!this.deps.state.readSession(sessionId)) return;
    const from = this.deps.state.transcriptCount(sessionId);
    this.deps.state.appendTranscript(sessionId, [entry]);
    void this.append(sessionId, { type: 'transcript', entry });
    this.deps.changes.emit('sessionActivity', { sessionId, transcriptFrom: from });
  }
}
