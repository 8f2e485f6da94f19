/**
 * The device runtime of an enrolled device: heartbeat with sealed capabilities, the push stream,
 * sessions, the handoff coordinator, and the device API (DeviceApiHandlers) with its events.
 */
import type { PushMessage } from '../../shared/api/push.ts';
import type { DeviceApiEvent, DeviceApiEvents, DeviceApiHandlers, DeviceStatusView } from '../../shared/device-api.ts';
import { fail, ok, type ActionResult } from '../../shared/errors.ts';
import { activateCheckpoint, type ActivationDeps } from '../handoff/activation.ts';
import { Coordinator } from '../handoff/coordinator.ts';
import type { HandoffConfig } from '../handoff/handoff-config.ts';
import { moveRequests, type MoveRequests } from '../handoff/move-request.ts';
import { sourceStep } from '../handoff/source-steps.ts';
import { targetStep } from '../handoff/target-steps.ts';
import { detectedVersion, publishedVersions } from '../../shared/cli-version.ts';
import { DeviceDirectory } from './device-directory.ts';
import { afterLocalWrites } from '../local-state/durable-backend.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { AccountPort } from '../ports/account.ts';
import type { BackendLinkPort, BackendPort } from '../ports/backend.ts';
import type { Clock } from '../ports/clock.ts';
import type { DeviceCapabilities, TargetCheck } from '../ports/devices.ts';
import type { GitPort, RemediationPort } from '../ports/git.ts';
import type { PacketPort, ProviderPort } from '../ports/providers.ts';
import type { SealPort } from '../ports/seal.ts';
import { blockedNotice, endedNotice } from './move-notices.ts';
import { adoptSession, listAgentSessions, type AdoptionDeps } from './sessions/session-adoption.ts';
import { progressSink } from '../ports/progress-sink.ts';
import { SessionService } from './sessions/session-service.ts';
import { turnLogFile } from './turn-log.ts';
import { handoffView, sessionDetail, sessionView, transcriptPage, type ViewDeps } from './views.ts';
import { ViewBatch, type ViewChanges } from './view-batch.ts';

export interface DeviceRuntimeDeps {
  status: DeviceStatusView & { deviceId: string; deviceName: string; accountId: string };
  state: LocalState;
  backend: BackendPort;
  seal: SealPort;
  git: GitPort;
  remediation: RemediationPort;
  packets: PacketPort;
  providers: ProviderPort;
  targetCheck: TargetCheck;
  account: AccountPort;
  /** The backend's addresses and whether the device reaches them (shown in the status). */
  link: BackendLinkPort;
  /** Opens the push stream; `onOpen` runs on every (re)connect, `replayed` when the backend replayed what was missed. */
  openStream(onMessage: (message: PushMessage) => void, onOpen: (opened: { replayed: boolean }) => void): { close(): void };
  clock: Clock;
  heartbeatMs: number;
  config: HandoffConfig;
  log(message: string): void;
}

type Listener = (event: DeviceApiEvent, payload: unknown) => void;

const NO_SUCH_SESSION = fail('not_found', 'No such session.');

export class DeviceRuntime {
  readonly sessions: SessionService;
  readonly devices: DeviceDirectory;
  readonly coordinator: Coordinator;
  private readonly moves: MoveRequests;
  private readonly activation: ActivationDeps;
  private readonly adoption: AdoptionDeps;
  private readonly listeners = new Set<Listener>();
  /** Snapshot views to send once the current turn ends. */
  private readonly viewBatch = new ViewBatch((changes) => this.sendViews(changes));
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;
  private stream: { close(): void } | null = null;
  private unwatchLink: (() => void) | null = null;
  private readonly views: ViewDeps;
  private readonly deps: DeviceRuntimeDeps;

  constructor(given: DeviceRuntimeDeps) {
    // Local records are written behind; nothing reaches the backend before what it relies on is on disk.
    const deps = { ...given, backend: afterLocalWrites(given.backend, given.state) };
    this.deps = deps;
    const selfId = deps.status.deviceId;
    this.devices = new DeviceDirectory(selfId, deps.seal, deps.clock);
    this.sessions = new SessionService({
      selfId,
      selfName: deps.status.deviceName,
      state: deps.state,
      backend: deps.backend,
      seal: deps.seal,
      git: deps.git,
      providers: deps.providers,
      clock: deps.clock,
      changed: (id) => this.sessionChanged(id),
      activity: (id, from) => this.sessionActivity(id, from),
      log: deps.log,
      ...(deps.config.testTurnLog ? { turnLog: turnLogFile(deps.config.testTurnLog, deps.log) } : {}),
    });
    const { state, backend, seal, git, packets, providers, clock, log, config } = deps;
    const selfName = deps.status.deviceName;
    // Long steps (fetch, clone, checkpoint transfer, import) report here: the stepper and the log.
    // A step's progress follows the views of what changed before it (the handoff now at that step).
    const progress = progressSink({
      emit: (view) => {
        this.viewBatch.sendNow();
        this.emit('handoffProgress', view);
      },
      log,
      clock,
    });
    this.activation = { selfId, state, backend, seal, git, packets, providers, sessions: this.sessions, config, clock, log, progress };
    this.coordinator = new Coordinator(
      {
        selfId,
        progress: state,
        backend,
        seal,
        clock,
        log,
        lostSession: (sessionId) => this.sessions.markMoved(sessionId),
        // A transition changes the session's view (owner, generation, input block), never its
        // transcript or agents: the list carries it without resending the whole session.
        handoffChanged: (h) => this.viewBatch.handoff(h.id),
        ended: (h, role) => {
          const notice = endedNotice(handoffView(this.views, h), role, this.titleOf(h.sessionId), clock());
          if (notice) this.emit('moveNotice', notice);
        },
      },
      {
        source: sourceStep({
          selfId,
          selfName,
          state,
          sessions: this.sessions,
          git,
          packets,
          seal,
          backend,
          providers,
          config,
          link: deps.link,
          clock,
          log,
          progress,
        }),
        target: targetStep({
          ...this.activation,
          state,
          backend,
          seal,
          keys: deps.account,
          git,
          providers,
          sessions: this.sessions,
          config,
        }),
      },
    );
    this.moves = moveRequests({
      selfId,
      state,
      backend,
      seal,
      git,
      devices: this.devices,
      targetCheck: deps.targetCheck,
      sessions: this.sessions,
      handoffs: this.coordinator,
      clock,
    });
    this.views = { selfId, state: deps.state, seal: deps.seal, devices: this.devices, sessions: this.sessions };
    this.adoption = {
      selfId,
      state: deps.state,
      sessions: this.sessions,
      providers: deps.providers,
      changed: (id) => this.sessionChanged(id),
    };
  }

  /** Registers a listener for device API events; returns its unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit<E extends DeviceApiEvent>(event: E, payload: DeviceApiEvents[E]): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event, payload);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  /** The session's content or view changed: its whole detail, then the list (at the end of this turn). */
  private sessionChanged(sessionId: string): void {
    if (this.listeners.size > 0) this.viewBatch.session(sessionId);
  }

  /** Sends the views of what changed during a turn (view-batch.ts). */
  private sendViews({ sessions, handoffs, list }: ViewChanges): void {
    if (this.listeners.size === 0) return;
    for (const sessionId of sessions) {
      const session = this.deps.state.readSession(sessionId);
      if (session) this.emit('sessionChanged', sessionDetail(this.views, session, this.coordinator.forSession(sessionId)));
    }
    for (const handoffId of handoffs) {
      const handoff = this.coordinator.get(handoffId);
      if (handoff) this.emit('handoffChanged', handoffView(this.views, handoff));
    }
    if (list) this.emit('sessionsChanged', this.listSessionViews());
  }

  /** Only the transcript from `transcriptFrom` on and the agent map changed: just those (unless its whole detail is on its way). */
  private sessionActivity(sessionId: string, transcriptFrom: number): void {
    const session = this.deps.state.readSession(sessionId);
    if (!session || this.listeners.size === 0 || this.viewBatch.sessionPending(sessionId)) return;
    this.emit('sessionActivity', {
      sessionId,
      transcriptFrom,
      transcript: this.deps.state.transcriptPage(sessionId, transcriptFrom, Infinity),
      agents: session.agents,
    });
  }

  /** Only views changed (ownership, input blocks, handoffs): the list of session views (at the end of this turn). */
  private sessionsChanged(): void {
    if (this.listeners.size > 0) this.viewBatch.sessionList();
  }

  private listSessionViews() {
    return this.deps.state.readSessions().map((s) => sessionView(this.views, s, this.coordinator.forSession(s.id)));
  }

  /** A session's title as this device knows it (its id when it does not). */
  private titleOf(sessionId: string): string {
    return this.deps.state.readSession(sessionId)?.title ?? sessionId;
  }

  /** The device's status now: who it is, its backend addresses and whether it reaches them. */
  status(): DeviceStatusView {
    return { ...this.deps.status, backendUrls: this.deps.link.addresses(), reachability: this.deps.link.reachability() };
  }

  /** Brings the device up: catch up with the backend, resume owned sessions, heartbeat, stream. */
  async start(): Promise<void> {
    this.unwatchLink = this.deps.link.subscribe(() => this.emit('statusChanged', this.status()));
    await this.heartbeat();
    await this.catchUp();
    await this.sessions.resumeOwned();
    this.heartbeatTimer = setInterval(() => {
      void this.heartbeat();
    }, this.deps.heartbeatMs);
    this.stream = this.deps.openStream(
      (message) => {
        void this.onPush(message);
      },
      // A stream that resumed where it left off was replayed what it missed: no re-read needed.
      ({ replayed }) => {
        if (!replayed) void this.catchUp();
      },
    );
  }

  /** Reconcile: devices, sessions, handoffs this device should act on. */
  private async catchUp(): Promise<void> {
    try {
      const devices = await this.deps.backend.listDevices();
      if (devices.ok) {
        this.devices.replaceAll(devices.value);
        this.emit('devicesChanged', this.devices.views());
      }
      const sessions = await this.deps.backend.listSessions();
      // A session whose local record could not be read is rebuilt from the backend, not re-learned as a stranger.
      const unreadable = this.deps.state.unreadableSessions();
      if (sessions.ok) {
        for (const record of sessions.value) {
          const why = unreadable.get(record.id);
          if (why !== undefined && !this.deps.state.readSession(record.id)) await this.sessions.rebuild(record, why);
          else await this.sessions.applyRemote(record);
        }
      }
      await this.coordinator.reconcile();
      await this.deps.account.approvePendingJoins().catch(() => undefined);
    } catch (error) {
      this.deps.log(`reconcile failed: ${(error as Error).message}`);
    }
  }

  private async onPush(message: PushMessage): Promise<void> {
    try {
      switch (message.type) {
        case 'handoff':
          this.coordinator.observe(message.handoff);
          break;
        case 'session':
          await this.sessions.applyRemote(message.session);
          break;
        case 'session-event':
          await this.sessions.pullEvents(message.sessionId, message.seq);
          break;
        case 'device':
          this.devices.upsert(message.device);
          this.emit('devicesChanged', this.devices.views());
          break;
        case 'join-request':
          if (message.joinRequest.inviterDeviceId === this.deps.status.deviceId && message.joinRequest.status === 'pending')
            await this.deps.account.approvePendingJoins();
          break;
        case 'keys':
          await this.deps.account.refreshKeyRing();
          break;
        default:
          break;
      }
    } catch (error) {
      this.deps.log(`push ${message.type} failed: ${(error as Error).message}`);
    }
  }

  /** Publishes reachability and sealed capabilities. */
  private async heartbeat(): Promise<void> {
    try {
      const { git, providers, seal, config } = this.deps;
      const [hasGit, available] = await Promise.all([git.available(), providers.list()]);
      const capabilities: DeviceCapabilities = {
        providers: available.filter((p) => p.available).map((p) => p.id),
        git: hasGit,
        remotes: hasGit ? await git.remotesUnder(config.workspaceRoot) : [],
        keyVersions: seal.keyVersions(),
        providerVersions: publishedVersions(available),
      };
      const sealed = seal.sealJson(capabilities, { kind: 'capabilities', deviceId: this.deps.status.deviceId });
      const result = await this.deps.backend.heartbeat(sealed, capabilities.keyVersions);
      if (!result.ok) this.deps.log(`heartbeat refused: ${result.code}`);
    } catch (error) {
      this.deps.log(`heartbeat failed: ${(error as Error).message}`);
    }
  }

  /** The device API this runtime serves. */
  handlers(): DeviceApiHandlers {
    const { state, backend, account, remediation, git } = this.deps;
    const remediate = async (sessionId: string, repo: string, act: (path: string) => Promise<ActionResult>) => {
      const session = state.session(sessionId);
      if (!session) return { result: NO_SUCH_SESSION, report: { ready: false, blockers: [], repos: [], evaluatedAt: this.deps.clock() } };
      const repos = await git.repos(session);
      const target = repos.find((r) => r.path === repo || r.relPath === repo);
      const result = target ? await act(target.path) : fail('not_found', 'That repository is not part of the session.');
      return { result, report: await git.sourceReadiness(session) };
    };
    return {
      getStatus: async () => this.status(),
      createAccount: async () => ok(this.status()),
      joinAccount: async () => ok(this.status()),
      listProviders: async () => this.deps.providers.list(),
      listSessions: async () => this.listSessionViews(),
      getSession: async ({ sessionId }) => {
        const session = state.readSession(sessionId);
        if (!session) return null;
        if (session.ownerDeviceId !== this.deps.status.deviceId) await this.sessions.pullEvents(sessionId);
        return sessionDetail(this.views, state.readSession(sessionId)!, this.coordinator.forSession(sessionId));
      },
      readTranscript: async ({ sessionId, from, count }) =>
        state.readSession(sessionId) ? transcriptPage(this.views, sessionId, from, count) : null,
      startSession: async (input) => {
        const started = await this.sessions.start(input);
        return started.ok ? ok(sessionView(this.views, started.value, [])) : started;
      },
      listAgentSessions: async ({ provider, workspace }) => listAgentSessions(this.adoption, provider, workspace),
      adoptSession: async (input) => {
        const adopted = await adoptSession(this.adoption, input);
        return adopted.ok ? ok(sessionView(this.views, adopted.value, [])) : adopted;
      },
      sendMessage: async ({ sessionId, text }) => this.sessions.send(sessionId, text),
      listDevices: async () => {
        const listed = await backend.listDevices();
        if (listed.ok) this.devices.replaceAll(listed.value);
        return this.devices.views();
      },
      moveEligibility: async ({ sessionId }) => {
        // The backend's blob limit is learnt beside the device list, so the Move that follows asks for neither.
        const [listed] = await Promise.all([backend.listDevices(), backend.blobLimit()]);
        if (listed.ok) this.devices.replaceAll(listed.value);
        const session = state.session(sessionId);
        if (!session) return [];
        return this.devices.eligibility(
          session,
          this.deps.targetCheck,
          detectedVersion(await this.deps.providers.list(), session.provider),
        );
      },
      checkReadiness: async ({ sessionId, targetDeviceId }) => this.moves.evaluate(sessionId, targetDeviceId),
      startMove: async ({ sessionId, targetDeviceId }) => {
        const started = await this.moves.start(sessionId, targetDeviceId);
        if (!started.ok && 'report' in started) {
          const move = { sessionId, title: this.titleOf(sessionId), sourceName: this.deps.status.deviceName };
          const targetName = this.devices.nameOf(targetDeviceId);
          this.emit('moveNotice', blockedNotice({ ...move, targetName, blockers: started.report.blockers }, this.deps.clock()));
        }
        return started;
      },
      cancelMove: async ({ sessionId }) => this.coordinator.cancelByUser(sessionId),
      pushRepo: async ({ sessionId, repo }) => remediate(sessionId, repo, (path) => remediation.push(path)),
      commitAll: async ({ sessionId, repo, message }) => remediate(sessionId, repo, (path) => remediation.commitAll(path, message)),
      retryActivation: async ({ sessionId }) => this.retryActivation(sessionId),
      handoffHistory: async ({ sessionId }) => {
        const listed = await backend.listHandoffs({ sessionId });
        if (listed.ok) for (const h of listed.value) this.coordinator.observe(h);
        return this.coordinator.forSession(sessionId).map((h) => handoffView(this.views, h));
      },
      createInvite: async () => account.createInvite(),
      revokeDevice: async ({ deviceId }) => account.revokeDevice(deviceId),
      rotateKeys: async () => account.rotateKeys(),
      setBackendUrls: async ({ backendUrls }) => {
        this.deps.link.setAddresses(backendUrls);
        const status = this.status();
        this.emit('statusChanged', status);
        return ok(status);
      },
    };
  }

  /** Runs the activation of a failed handoff's checkpoint again (the target keeps ownership). */
  async retryActivation(sessionId: string): Promise<ActionResult> {
    const session = this.deps.state.session(sessionId);
    if (!session?.needsAttention) return fail('not_needed', 'The session does not need attention.');
    if (session.needsAttention.handoffId === null)
      return fail('not_an_activation', session.needsAttention.fix ?? 'The session needs attention, but not a failed activation.');
    const handoff = await this.deps.backend.getHandoff(session.needsAttention.handoffId);
    if (!handoff.ok) return fail(handoff.code, handoff.message);
    const result = await activateCheckpoint(this.activation, handoff.value);
    if (!result.ok) {
      this.deps.state.updateSession(sessionId, (s) => {
        s.needsAttention = { handoffId: handoff.value.id, code: result.code, message: result.message };
      });
      this.sessionChanged(sessionId);
      return fail(result.code, result.message);
    }
    this.sessions.clearAttention(sessionId);
    await this.sessions.publishMeta(sessionId);
    const { resumePath, note, drift } = result.value;
    const found = drift.length === 0 ? 'no drift' : `drift: ${drift.map((d) => d.code).join(', ')}`;
    this.sessions.note(
      sessionId,
      `Activation retried and succeeded: the session resumed by ${resumePath} (${found}).${note ? ` ${note}` : ''}`,
    );
    const provider = this.sessions.provider(sessionId);
    if (provider) await this.sessions.saveResumeData(sessionId, provider);
    return ok(undefined);
  }

  /** Stops heartbeat, stream, timers and providers; local state stays for the next start. */
  async stop(): Promise<void> {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.unwatchLink?.();
    this.stream?.close();
    this.coordinator.stop();
    await this.sessions.stopAll();
    await this.deps.state.close().catch((error: Error) => this.deps.log(error.message));
  }
}
