/**
 * Pulling a session's events in: the sessions another device drives follow the backend — a
 * session record learns an unknown session or follows its owner and generation, and its event
 * stream is read page by page into the transcript and the agent map, one pull per session at a
 * time however many pushes announce events.
 */
import type { TranscriptEntry } from '../../../shared/agents.ts';
import type { Session } from '../../../shared/api/sessions.ts';
import type { PermissionRequestView } from '../../../shared/permission-views.ts';
import type { LocalState } from '../../local-state/local-state.ts';
import { EVENT_PAGE_SIZE, type BackendPort } from '../../ports/backend.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { SealPort } from '../../ports/seal.ts';
import { recordAsked, recordSettled } from '../permissions/permission-book.ts';
import { entriesOf, EventSchema, type SessionEventBody } from './session-events.ts';
import { openSessionMeta } from './session-meta.ts';
import { learnedRecord } from './session-rebuild.ts';

export interface EventPullerDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'saveSession' | 'updateSession' | 'knownTranscriptIds' | 'transcriptCount' | 'appendTranscript'>;
  backend: Pick<BackendPort, 'listEvents'>;
  seal: Pick<SealPort, 'openJson'>;
  /** Whether a provider runs the session here (its own events are not pulled back in). */
  isRunning(sessionId: string): boolean;
  /** Stops driving a session this device no longer owns. */
  markMoved(sessionId: string): Promise<void>;
  /** Where this part tells what it changed (a session's view, or only its transcript). */
  changes: ChangeSink;
  /** A permission request of the owner's agent that still waits after a page was read (the desktop notice). */
  asked?(request: PermissionRequestView): void;
}

/** A session's read of its events running, and the one more asked for meanwhile. */
interface Pull {
  current: Promise<void>;
  /** The read after `current`, once one was asked for while it ran. */
  next: Promise<void> | null;
  /** The newest event asked for while `current` ran (Infinity: not said); read again unless `current` reached it. */
  wanted: number;
}

export class EventPuller {
  private readonly pulling = new Map<string, Pull>();
  /** Per session another device owns, the sealed metadata last followed (followAgent). */
  private readonly metaSeen = new Map<string, string>();

  constructor(private readonly deps: EventPullerDeps) {}

  /** Applies a backend session record: learns unknown sessions, follows owner and generation. */
  async applyRemote(record: Session): Promise<void> {
    const local = this.deps.state.readSession(record.id);
    if (!local) {
      const meta = openSessionMeta(this.deps.seal, record);
      if (!meta.ok) return;
      this.deps.state.saveSession(learnedRecord(record, meta.value));
      await this.pullEvents(record.id);
      this.deps.changes.emit('sessionChanged', { sessionId: record.id });
      return;
    }
    if (record.generation < local.generation) return;
    if (record.ownerDeviceId !== this.deps.selfId) this.followFreshClone(record, local.freshCloneOn);
    if (local.ownerDeviceId !== this.deps.selfId && record.ownerDeviceId !== this.deps.selfId) this.followAgent(record);
    // Known sessions follow only owner and generation (and the fresh-clone choice and, off the owner, its agent); a record that changes neither changes nothing here.
    if (record.generation === local.generation && record.ownerDeviceId === local.ownerDeviceId) return;
    const wasOwner = local.ownerDeviceId === this.deps.selfId;
    // Not waited onto the disk: the backend's record is the truth and is applied again at start
    // (catch-up). A device that lost the session records that durably next (marked moved); one that
    // gained it by a move writes it with the activation. Waiting here held the target's next transition.
    this.deps.state.updateSession(
      record.id,
      (s) => {
        s.ownerDeviceId = record.ownerDeviceId;
        s.generation = record.generation;
      },
      false,
    );
    if (wasOwner && record.ownerDeviceId !== this.deps.selfId) await this.deps.markMoved(record.id);
    this.deps.changes.emit('sessionChanged', { sessionId: record.id });
  }

  /**
   * Follows the owner's choice of a fresh clone on a device for the next move (sealed in the
   * metadata, republished before the move is asked for): the target reads it as it prepares.
   */
  private followFreshClone(record: Session, known: string | null): void {
    const meta = openSessionMeta(this.deps.seal, record);
    if (!meta.ok || meta.value.freshCloneOn === known) return;
    this.deps.state.updateSession(
      record.id,
      (s) => {
        s.freshCloneOn = meta.value.freshCloneOn;
      },
      false,
    );
  }

  /**
   * Follows the agent of a session another device owns from its sealed metadata, when that changed:
   * which agent runs it, where it changed (the run view's parts), and the agent a move asks this
   * device to continue with (target-steps.ts prepare reads it).
   */
  private followAgent(record: Session): void {
    if (this.metaSeen.get(record.id) === record.sealedMeta) return;
    this.metaSeen.set(record.id, record.sealedMeta);
    const meta = openSessionMeta(this.deps.seal, record);
    if (!meta.ok) return;
    const { provider, continueWith, providerChanges } = meta.value;
    const local = this.deps.state.readSession(record.id);
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (
      !local ||
      (local.provider === provider && same(local.continueWith ?? null, continueWith) && same(local.providerChanges, providerChanges))
    )
      return;
    this.deps.state.updateSession(record.id, (s) => {
      s.provider = provider;
      s.continueWith = continueWith;
      s.providerChanges = providerChanges;
    });
    this.deps.changes.emit('sessionChanged', { sessionId: record.id });
  }

  /**
   * Reads every event after the local cursor (sessions another device drives) into transcript and
   * agents, page by page. `seq`: the event a push announced; nothing is read when the cursor is
   * already there. One pull per session at a time: a pull asked for while one runs (a burst of
   * pushes, a view opened) is answered by one more read after it, unless what the running one read
   * reached the event asked for. So no caller waits longer than the running read and one more, however
   * often it is asked over a slow link (each waited for the end of every read asked for meanwhile).
   */
  pullEvents(sessionId: string, seq?: number): Promise<void> {
    const cursor = () => this.deps.state.readSession(sessionId)?.eventCursor ?? 0;
    const running = this.pulling.get(sessionId);
    if (seq !== undefined && cursor() >= seq) return running?.current ?? Promise.resolve();
    if (!running) return this.startPull(sessionId);
    running.wanted = Math.max(running.wanted, seq ?? Infinity);
    running.next ??= running.current
      .catch(() => undefined)
      .then(() => {
        if (cursor() < running.wanted) return this.startPull(sessionId);
        if (this.pulling.get(sessionId) === running) this.pulling.delete(sessionId);
      });
    return running.next;
  }

  private startPull(sessionId: string): Promise<void> {
    const pull: Pull = { current: Promise.resolve(), next: null, wanted: 0 };
    pull.current = (async () => {
      try {
        await this.pullPages(sessionId);
      } finally {
        // A read asked for from here on starts its own, unless one follows this already.
        if (pull.next === null && this.pulling.get(sessionId) === pull) this.pulling.delete(sessionId);
      }
    })();
    this.pulling.set(sessionId, pull);
    return pull.current;
  }

  private async pullPages(sessionId: string): Promise<void> {
    for (;;) {
      const session = this.deps.state.readSession(sessionId);
      if (!session || this.deps.isRunning(sessionId)) return;
      const page = await this.deps.backend.listEvents(sessionId, session.eventCursor);
      if (!page.ok || page.value.length === 0) return;
      // Entries this device holds already are not added again: asked of the log for the page's ids at once.
      const opened: SessionEventBody[] = [];
      for (const event of page.value) {
        const body = this.deps.seal.openJson(event.sealedBody, { kind: 'session-event', sessionId });
        const parsed = body.ok ? EventSchema.safeParse(body.value) : null;
        if (parsed?.success) opened.push(parsed.data);
      }
      const known = await this.deps.state.knownTranscriptIds(
        sessionId,
        opened.flatMap((data) => entriesOf(data).map((e) => e.id)),
      );
      const from = this.deps.state.transcriptCount(sessionId);
      const added: TranscriptEntry[] = [];
      const blockChanged = opened.some((data) => data.type === 'move-block');
      const asked: PermissionRequestView[] = [];
      this.deps.state.updateSession(
        sessionId,
        (s) => {
          for (const event of page.value) s.eventCursor = Math.max(s.eventCursor, event.seq);
          for (const data of opened) {
            if (data.type === 'agents') s.agents = data.agents;
            if (data.type === 'move-block') s.moveBlock = data.block;
            if (data.type === 'permission-request') {
              asked.push(data.request);
              recordAsked(s, data.request);
            }
            if (data.type === 'permission-settled') recordSettled(s, data.outcome);
            for (const entry of entriesOf(data)) {
              if (known.has(entry.id)) continue;
              known.add(entry.id);
              added.push(entry);
            }
          }
        },
        false,
      );
      this.deps.state.appendTranscript(sessionId, added);
      // A blocked move or a permission request is part of the session's view, not only of its activity.
      const settled = opened.some((data) => data.type === 'permission-settled');
      if (blockChanged || asked.length > 0 || settled) this.deps.changes.emit('sessionChanged', { sessionId });
      else this.deps.changes.emit('sessionActivity', { sessionId, transcriptFrom: from });
      const pending = this.deps.state.readSession(sessionId)?.permissions.pending ?? [];
      for (const request of asked) if (pending.some((p) => p.id === request.id)) this.deps.asked?.(request);
      // A page shorter than the most asked for is the last: nothing is asked again to learn so.
      if (page.value.length < EVENT_PAGE_SIZE) return;
    }
  }
}
