/**
 * Sessions on this device: start one, run its provider while this device owns it, append its
 * transcript and agent map as sealed events fenced by the generation, refuse input durably when
 * quiescing or not the owner, and stop driving at once when the backend says the session moved.
 */
import { z } from 'zod';
import type { AgentView, TranscriptEntry } from '../../shared/agents.ts';
import type { Session } from '../../shared/api/sessions.ts';
import type { InputBlock } from '../../shared/device-api.ts';
import { fail, ok, type ActionResult, type Result } from '../../shared/errors.ts';
import {
  DEFAULT_PERMISSION_LEVEL,
  isProviderId,
  type PermissionLevel,
  PROVIDER_CAPABILITIES,
  PROVIDER_LABELS,
  type ProviderEvent,
  type ProviderId,
  type ProviderSession,
  type ResumeData,
} from '../../shared/provider.ts';
import { CONTINUATION_TAIL_ENTRIES, continuationInput } from '../providers/continuation-input.ts';
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import { EVENT_PAGE_SIZE, type BackendPort } from '../ports/backend.ts';
import type { Clock } from '../ports/clock.ts';
import type { GitPort, RepoSnapshot } from '../ports/git.ts';
import type { ProviderPort } from '../ports/providers.ts';
import { newId } from '../ports/new-id.ts';
import type { RepoRef } from '../ports/repo-ref.ts';
import type { SealPort } from '../ports/seal.ts';
import type { SessionContent, SessionsPort } from '../ports/sessions.ts';
import { metaOf, openSessionMeta, sealSessionMeta } from './session-meta.ts';
import { learnedRecord, rebuildRecord, workspaceBack, type RebuildDeps } from './session-rebuild.ts';
import type { TurnLog } from './turn-log.ts';

/** What a new session is made of (start and adopt). */
export interface NewSessionInput {
  workspace: string;
  provider: string;
  title?: string;
  permission?: PermissionLevel;
}

const EventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('transcript'), entry: z.custom<TranscriptEntry>() }),
  /** Many entries at once: the history an adopted session brought with it. */
  z.object({ type: z.literal('history'), entries: z.array(z.custom<TranscriptEntry>()) }),
  z.object({ type: z.literal('agents'), agents: z.array(z.custom<AgentView>()) }),
]);

export interface SessionServiceDeps {
  selfId: string;
  /** This device's name (what a restart's continuation prompt says the session ran on). */
  selfName?: string;
  state: LocalState;
  backend: BackendPort;
  seal: SealPort;
  git: GitPort;
  providers: ProviderPort;
  clock: Clock;
  /** Called whenever a session's view may have changed. */
  changed(sessionId: string): void;
  /** Called when only the transcript (from index `transcriptFrom` on) and the agent map changed. */
  activity(sessionId: string, transcriptFrom: number): void;
  log(message: string): void;
  /** Tests only: told of every provider turn that starts or ends here (turn-log.ts). */
  turnLog?: TurnLog;
}

/** A new session's input after checkNew: a known provider, its level, the workspace's repositories. */
export interface CheckedNewSession {
  workspace: string;
  provider: ProviderId;
  permission: PermissionLevel;
  snapshots: RepoSnapshot[];
}

const STALE_CODES = new Set(['stale_generation', 'not_owner']);

/** The longest a session's appends are held (holdAppends), whatever they wait for. */
export const APPEND_HOLD_MAX_MS = 30_000;

export class SessionService implements SessionsPort {
  private readonly live = new Map<string, { provider: ProviderSession; unsubscribe: () => void }>();
  private readonly agentFlush = new Map<string, ReturnType<typeof setTimeout>>();
  /** Sessions whose event appends wait (holdAppends): until when. */
  private readonly appendsHeld = new Map<string, Promise<unknown>>();
  private readonly resuming = new Set<string>();
  private readonly pulling = new Map<string, Promise<void>>();
  /** Per session, the newest event asked for while a pull ran (Infinity: not said); read again unless that pull reached it. */
  private readonly pullWanted = new Map<string, number>();
  /** What the backend holds of each session's metadata, as this process last published it: [generation, meta] as JSON. */
  private readonly publishedMeta = new Map<string, string>();

  constructor(private readonly deps: SessionServiceDeps) {}

  /** The running provider of an owned session, if any. */
  provider(sessionId: string): ProviderSession | undefined {
    return this.live.get(sessionId)?.provider;
  }

  /** Starts a session on `workspace` with `provider`; this device owns it at generation 1. */
  async start(input: NewSessionInput & { prompt: string }): Promise<Result<LocalSession>> {
    const checked = await this.checkNew(input);
    if (!checked.ok) return checked;
    const title = input.title?.trim() || input.prompt.trim().split('\n')[0]?.slice(0, 80) || 'Untitled session';
    const created = await this.createRecord(checked.value, title);
    if (!created.ok) return created;
    const id = created.value.id;
    const provider = this.attach(id, input.provider);
    const started = await provider.start(input.workspace, input.prompt);
    if (!started.ok) this.deps.log(`provider failed to start: ${started.message}`);
    this.deps.changed(id);
    return ok(this.deps.state.session(id)!);
  }

  /**
   * Checks what a new session is made of: a known provider, a permission level only for a provider
   * that has levels, a workspace holding git repositories. Resolves to the input with its repositories.
   */
  async checkNew(input: NewSessionInput): Promise<Result<CheckedNewSession>> {
    if (!isProviderId(input.provider)) return fail('unknown_provider', `No provider named ${input.provider}.`);
    if (input.permission !== undefined && !PROVIDER_CAPABILITIES[input.provider].permissions)
      return fail('invalid_argument', `${PROVIDER_LABELS[input.provider]} has no permission levels.`);
    const snapshots = await this.deps.git.repos({ workspace: input.workspace, repoPaths: [] });
    if (snapshots.length === 0) return fail('not_a_repository', `${input.workspace} holds no git repository.`);
    const provider: ProviderId = input.provider;
    return ok({ workspace: input.workspace, provider, permission: input.permission ?? DEFAULT_PERMISSION_LEVEL, snapshots });
  }

  /** Creates the session on the backend (generation 1, owned here) and its local record, with `content` as its history. */
  async createRecord(
    input: CheckedNewSession,
    title: string,
    content: SessionContent = { agents: [], transcript: [] },
  ): Promise<Result<LocalSession>> {
    const repos: RepoRef[] = input.snapshots.map(({ relPath, remoteUrl, branch }) => ({ relPath, remoteUrl, branch }));
    const id = newId();
    const meta = metaOf({ title, provider: input.provider, permission: input.permission, workspace: input.workspace, repos });
    const created = await this.deps.backend.createSession(id, sealSessionMeta(this.deps.seal, id, meta));
    if (!created.ok) return created;
    this.publishedMeta.set(id, JSON.stringify([created.value.generation, meta]));
    const now = this.deps.clock();
    const session: LocalSession = {
      ...learnedRecord(created.value, meta),
      workspace: input.workspace,
      repoPaths: input.snapshots.map((r) => r.path),
      agents: content.agents,
      createdAt: now,
      updatedAt: now,
    };
    this.deps.state.saveSession(session);
    this.deps.state.appendTranscript(id, content.transcript, true);
    return ok(session);
  }

  /** Why input is refused on this device right now, or null. */
  inputBlock(session: Readonly<LocalSession>): InputBlock {
    if (session.inputBlock) return session.inputBlock;
    if (session.ownerDeviceId !== this.deps.selfId)
      return { code: 'not_owner', message: 'Another device owns this session; input goes there.' };
    if (!this.live.has(session.id)) return { code: 'not_running', message: 'The agent is not running on this device.' };
    return null;
  }

  /** Sends user input to the owned, accepting session; otherwise refuses with the reason. */
  async send(sessionId: string, text: string): Promise<ActionResult> {
    const session = this.deps.state.readSession(sessionId);
    if (!session) return fail('not_found', 'No such session.');
    const block = this.inputBlock(session);
    if (block) return fail(block.code, block.message);
    const result = await this.live.get(sessionId)!.provider.send(text);
    return result.ok ? ok(undefined) : fail(result.code, result.message);
  }

  /** Durably sets (or clears) the input-rejection flag of a session. */
  setInputBlock(sessionId: string, block: InputBlock): void {
    this.deps.state.updateSession(sessionId, (s) => {
      s.inputBlock = block;
    });
    this.deps.changed(sessionId);
  }

  /** Durably clears "needs attention" and the input block: the session runs here again. */
  clearAttention(sessionId: string): void {
    this.deps.state.updateSession(sessionId, (s) => {
      s.needsAttention = null;
      s.inputBlock = null;
    });
    this.deps.changed(sessionId);
  }

  /** Attaches a fresh provider session whose events are recorded and appended. */
  attach(sessionId: string, providerId: string): ProviderSession {
    if (!isProviderId(providerId)) throw new Error(`unknown provider ${providerId}`);
    const permission = this.deps.state.readSession(sessionId)?.permission ?? DEFAULT_PERMISSION_LEVEL;
    return this.run(sessionId, this.deps.providers.create(providerId, { permission }));
  }

  /** Makes `provider` (already made with the session's settings) the session's running provider: its events are recorded and appended. */
  run(sessionId: string, provider: ProviderSession): ProviderSession {
    void this.detach(sessionId);
    const unsubscribe = provider.onEvent((event) => this.onProviderEvent(sessionId, provider, event));
    this.live.set(sessionId, { provider, unsubscribe });
    return provider;
  }

  /** Stops and forgets the provider of a session (moved away, or shutting down). */
  async detach(sessionId: string): Promise<void> {
    const entry = this.live.get(sessionId);
    if (!entry) return;
    this.live.delete(sessionId);
    entry.unsubscribe();
    // The turn the stop ends is no longer heard of (unsubscribed): say here that it ended.
    if (entry.provider.isTurnActive()) this.logTurn(sessionId, 'ended', true);
    await entry.provider.stop().catch(() => undefined);
  }

  private logTurn(sessionId: string, event: 'started' | 'ended', interrupted?: boolean): void {
    if (!this.deps.turnLog) return;
    const session = this.deps.state.readSession(sessionId);
    this.deps.turnLog({
      deviceId: this.deps.selfId,
      sessionId,
      event,
      generation: session?.generation ?? 0,
      ownerDeviceId: session?.ownerDeviceId ?? '',
      at: this.deps.clock(),
      ...(interrupted === undefined ? {} : { interrupted }),
    });
  }

  private onProviderEvent(sessionId: string, provider: ProviderSession, event: ProviderEvent): void {
    if (event.type === 'turn-started' || event.type === 'turn-ended') {
      this.logTurn(
        sessionId,
        event.type === 'turn-started' ? 'started' : 'ended',
        event.type === 'turn-ended' ? event.interrupted : undefined,
      );
    }
    if (event.type === 'transcript') {
      this.appendEntry(sessionId, event.entry);
      // What the provider says about itself (a CLI's own error line, a refused permission, an import) goes to the device log too.
      if (event.entry.role === 'system') this.deps.log(`session ${sessionId} (${provider.provider}): ${event.entry.text}`);
    } else if (event.type === 'agent') {
      this.deps.state.updateSession(
        sessionId,
        (s) => {
          s.agents = [...s.agents.filter((a) => a.id !== event.agent.id), event.agent];
        },
        false,
      );
      this.scheduleAgentSnapshot(sessionId);
      this.deps.activity(sessionId, this.deps.state.transcriptCount(sessionId));
    } else if (event.type === 'turn-ended') {
      void this.saveResumeData(sessionId, provider);
    }
  }

  private scheduleAgentSnapshot(sessionId: string): void {
    if (this.agentFlush.has(sessionId)) return;
    this.agentFlush.set(
      sessionId,
      setTimeout(() => {
        this.agentFlush.delete(sessionId);
        const session = this.deps.state.readSession(sessionId);
        if (session) void this.append(sessionId, { type: 'agents', agents: session.agents });
      }, 50),
    );
  }

  /**
   * Keeps the provider's export in local state so a restart of this device can resume the session:
   * small JSON naming the CLI's own files. Provider files a checkpoint unpacked here are then no
   * longer needed and are removed.
   */
  async saveResumeData(sessionId: string, provider: ProviderSession): Promise<void> {
    if (!provider.capabilities.checkpointImport) return;
    const exported = await provider.exportResumeData();
    if (!exported.ok) return;
    this.deps.state.updateSession(sessionId, (s) => {
      s.providerResume = exported.value;
    });
    await this.deps.state.settled().catch(() => undefined);
    await this.deps.state.pruneExports(sessionId);
  }

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
  async append(sessionId: string, event: z.infer<typeof EventSchema>): Promise<ActionResult> {
    const held = this.appendsHeld.get(sessionId);
    if (held) await held;
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
    if (STALE_CODES.has(result.code)) await this.markMoved(sessionId);
    return fail(result.code, result.message);
  }

  /** Stops driving a session this device no longer owns: provider stopped, input refused as moved. */
  async markMoved(sessionId: string): Promise<void> {
    await this.detach(sessionId);
    this.setInputBlock(sessionId, { code: 'moved', message: 'This session moved to another device.' });
  }

  /** Applies a backend session record: learns unknown sessions, follows owner and generation. */
  async applyRemote(record: Session): Promise<void> {
    const local = this.deps.state.readSession(record.id);
    if (!local) {
      const meta = openSessionMeta(this.deps.seal, record);
      if (!meta.ok) return;
      this.deps.state.saveSession(learnedRecord(record, meta.value));
      await this.pullEvents(record.id);
      this.deps.changed(record.id);
      return;
    }
    if (record.generation < local.generation) return;
    // Known sessions follow only owner and generation; a record that changes neither changes nothing here.
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
    if (wasOwner && record.ownerDeviceId !== this.deps.selfId) await this.markMoved(record.id);
    this.deps.changed(record.id);
  }

  /**
   * Reads every event after the local cursor (sessions another device drives) into transcript and
   * agents, page by page. `seq`: the event a push announced; nothing is read when the cursor is
   * already there. One pull per session at a time: a pull asked for while one runs (a burst of
   * pushes) makes the running one read again once, unless what it read reached the event asked for,
   * and resolves with it.
   */
  pullEvents(sessionId: string, seq?: number): Promise<void> {
    const cursor = () => this.deps.state.readSession(sessionId)?.eventCursor ?? 0;
    const running = this.pulling.get(sessionId);
    if (seq !== undefined && cursor() >= seq) return running ?? Promise.resolve();
    if (running) {
      this.pullWanted.set(sessionId, Math.max(this.pullWanted.get(sessionId) ?? 0, seq ?? Infinity));
      return running;
    }
    const pull = (async () => {
      try {
        let wanted: number | undefined;
        do {
          this.pullWanted.delete(sessionId);
          await this.pullPages(sessionId);
          wanted = this.pullWanted.get(sessionId);
        } while (wanted !== undefined && cursor() < wanted);
      } finally {
        // In the same turn as the last check: a pull asked for from here on starts its own.
        this.pulling.delete(sessionId);
        this.pullWanted.delete(sessionId);
      }
    })();
    this.pulling.set(sessionId, pull);
    return pull;
  }

  private async pullPages(sessionId: string): Promise<void> {
    for (;;) {
      const session = this.deps.state.readSession(sessionId);
      if (!session || this.live.has(sessionId)) return;
      const page = await this.deps.backend.listEvents(sessionId, session.eventCursor);
      if (!page.ok || page.value.length === 0) return;
      // Entries this device holds already are not added again: asked of the log for the page's ids at once.
      const opened: z.infer<typeof EventSchema>[] = [];
      for (const event of page.value) {
        const body = this.deps.seal.openJson(event.sealedBody, { kind: 'session-event', sessionId });
        const parsed = body.ok ? EventSchema.safeParse(body.value) : null;
        if (parsed?.success) opened.push(parsed.data);
      }
      const entriesOf = (data: z.infer<typeof EventSchema>) =>
        data.type === 'history' ? data.entries : data.type === 'transcript' ? [data.entry] : [];
      const known = await this.deps.state.knownTranscriptIds(
        sessionId,
        opened.flatMap((data) => entriesOf(data).map((e) => e.id)),
      );
      const from = this.deps.state.transcriptCount(sessionId);
      const added: TranscriptEntry[] = [];
      this.deps.state.updateSession(
        sessionId,
        (s) => {
          for (const event of page.value) s.eventCursor = Math.max(s.eventCursor, event.seq);
          for (const data of opened) {
            if (data.type === 'agents') s.agents = data.agents;
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
      this.deps.activity(sessionId, from);
      // A page shorter than the most asked for is the last: nothing is asked again to learn so.
      if (page.value.length < EVENT_PAGE_SIZE) return;
    }
  }

  /**
   * Rebuilds a session whose local record could not be read (`why`) from the backend's record and
   * event stream (session-rebuild.ts), and says so in its transcript when this device owns it.
   */
  async rebuild(record: Session, why: string): Promise<void> {
    const session = await rebuildRecord(this.rebuildDeps(), record, why);
    await this.pullEvents(record.id);
    // Nothing of the session runs here now: an agent the last snapshot caught running was interrupted.
    this.deps.state.updateSession(record.id, (s) => {
      s.agents = s.agents.map((a) => (a.status === 'running' || a.status === 'starting' ? { ...a, status: 'interrupted' } : a));
    });
    this.deps.log(`session ${record.id}: its local record could not be read (${why}); rebuilt from the backend`);
    if (session.ownerDeviceId === this.deps.selfId) {
      const state = session.needsAttention ? `; it needs attention: ${session.needsAttention.fix ?? ''}` : '';
      this.note(
        record.id,
        `This device's record of the session could not be read (${why}); it was rebuilt from the account's sealed session metadata and event stream${state}`,
      );
    }
    this.deps.changed(record.id);
  }

  private rebuildDeps(): RebuildDeps {
    return { selfId: this.deps.selfId, state: this.deps.state, seal: this.deps.seal, git: this.deps.git };
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
    if (STALE_CODES.has(result.code)) await this.markMoved(sessionId);
    return fail(result.code, result.message);
  }

  /**
   * Resumes every session this device owns after a restart, as a target would: import of the
   * locally kept export where the provider supports it, else summary continuation from the
   * session's own transcript. Records the path taken on the session.
   */
  async resumeOwned(): Promise<void> {
    for (const listed of this.deps.state.listSessions()) {
      // A rebuilt session whose workspace is back runs again.
      const session = (await workspaceBack(this.rebuildDeps(), listed)) ? this.deps.state.session(listed.id)! : listed;
      const block = session.inputBlock?.code;
      if (session.ownerDeviceId !== this.deps.selfId || session.needsAttention || block === 'moved' || block === 'not_running') continue;
      // A session quiescing for a move starts no turn; the source resumes it here if that move is cancelled.
      if (block === 'quiescing' || this.live.has(session.id) || this.resuming.has(session.id) || !session.workspace) continue;
      // Start-up and a cancelled move's clean-up may both ask: one resume per session at a time.
      this.resuming.add(session.id);
      try {
        await this.resumeAfterRestart(session);
      } catch (error) {
        this.deps.log(`could not resume session ${session.id}: ${(error as Error).message}`);
        await this.detach(session.id);
      } finally {
        this.resuming.delete(session.id);
      }
      this.deps.changed(session.id);
    }
  }

  private async resumeAfterRestart(session: LocalSession): Promise<void> {
    const repos = await this.deps.git.repos({ workspace: session.workspace, repoPaths: session.repoPaths });
    const continuation = continuationInput({
      title: session.title,
      ranOn: this.deps.selfName ?? null,
      goal: (await this.deps.state.findTranscriptEntry(session.id, (e) => e.role === 'user'))?.text ?? '',
      newest: this.deps.state.newestTranscript(session.id, CONTINUATION_TAIL_ENTRIES),
      repos: repos.map((r) => ({ relPath: r.relPath, branch: r.branch, commit: r.head })),
      drift: [],
      nextAction: 'This device restarted; continue where the session left off.',
    });
    const provider = this.attach(session.id, session.provider);
    // The kept export is checked by the resume itself, which says why it fell back to a summary when refused.
    const resumed = await this.deps.providers.resume(
      provider,
      session.providerResume as ResumeData | null,
      continuation,
      session.workspace,
    );
    if (!resumed.ok) {
      this.deps.log(`could not resume session ${session.id}: ${resumed.message}`);
      await this.detach(session.id);
      return;
    }
    const { path, reason } = resumed.value;
    const at = this.deps.clock();
    this.deps.state.updateSession(session.id, (s) => {
      s.restartResume = { path, reason: reason ?? null, at };
    });
    this.deps.log(`resumed session ${session.id} after a restart by ${path}${reason ? ` (${reason})` : ''}`);
    const how = path === 'checkpoint-import' ? 'by importing the session it kept' : 'by summary continuation from its own transcript';
    this.note(session.id, `This device restarted; the session resumed ${how} (${path}).${reason ? ` ${reason}` : ''}`);
  }

  /** Adds a Baton note (a system entry of the main agent) to the transcript and appends it. */
  note(sessionId: string, text: string): void {
    this.appendEntry(sessionId, { id: `baton-${newId()}`, at: this.deps.clock(), role: 'system', agentId: 'main', text });
  }

  /** Adds one entry to the transcript, appends it to the backend and reports the activity. */
  private appendEntry(sessionId: string, entry: TranscriptEntry): void {
    if (!this.deps.state.readSession(sessionId)) return;
    const from = this.deps.state.transcriptCount(sessionId);
    this.deps.state.appendTranscript(sessionId, [entry]);
    void this.append(sessionId, { type: 'transcript', entry });
    this.deps.activity(sessionId, from);
  }

  /** Stops every provider (device shutdown); local state stays as it is. */
  async stopAll(): Promise<void> {
    for (const timer of this.agentFlush.values()) clearTimeout(timer);
    this.agentFlush.clear();
    await Promise.all([...this.live.keys()].map((id) => this.detach(id)));
  }
}
