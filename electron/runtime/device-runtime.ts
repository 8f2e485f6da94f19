/**
 * The device runtime of an enrolled device, running: heartbeat with sealed capabilities, the push
 * stream, catching up with the backend on start and on a reconnect that was not replayed, and the
 * device API (device-api/) with its events. compose.ts builds its parts and wires them.
 */
import type { PushMessage } from '../../shared/api/push.ts';
import { publishedVersions } from '../../shared/cli-version.ts';
import type { DeviceApiHandlers, DeviceStatusView } from '../../shared/device-api.ts';
import type { Coordinator } from '../handoff/coordinator.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { AccountPort } from '../ports/account.ts';
import type { BackendLinkPort, BackendPort } from '../ports/backend.ts';
import type { DeviceCapabilities } from '../ports/devices.ts';
import type { GitPort } from '../ports/git.ts';
import type { ProviderPort } from '../ports/providers.ts';
import type { SealPort } from '../ports/seal.ts';
import type { DeviceDirectory } from './device-directory.ts';
import type { DeviceApiListener, DeviceEvents } from './device-events.ts';
import type { DeviceStatus } from './device-status.ts';
import type { SessionPosts } from './session-posts.ts';
import type { SessionService } from './sessions/session-service.ts';

export interface DeviceRuntimeDeps {
  state: Pick<LocalState, 'unreadableSessions' | 'readSession' | 'close'>;
  backend: Pick<BackendPort, 'listDevices' | 'listSessions' | 'heartbeat'>;
  seal: Pick<SealPort, 'sealJson' | 'keyVersions'>;
  git: Pick<GitPort, 'available' | 'remotesUnder'>;
  providers: Pick<ProviderPort, 'list'>;
  account: Pick<AccountPort, 'approvePendingJoins' | 'refreshKeyRing'>;
  sessions: Pick<SessionService, 'resumeOwned' | 'rebuild' | 'applyRemote' | 'pullEvents' | 'stopAll'>;
  /** What other devices post to the sessions this device owns (answers, Move here requests). */
  posts: Pick<SessionPosts, 'pull'>;
  devices: Pick<DeviceDirectory, 'refresh' | 'upsert' | 'views' | 'nextPresenceChange'>;
  coordinator: Pick<Coordinator, 'reconcile' | 'observe' | 'stop'>;
  events: DeviceEvents;
  status: DeviceStatus;
  /** Whether the backend answers and takes this device: a change of either changes what the device views say. */
  link: Pick<BackendLinkPort, 'subscribe' | 'revokedAt'>;
  /** The device API this runtime serves (device-api/handlers.ts). */
  api: DeviceApiHandlers;
  /** Opens the push stream; `onOpen` runs on every (re)connect, `replayed` when the backend replayed what was missed. */
  openStream(onMessage: (message: PushMessage) => void, onOpen: (opened: { replayed: boolean }) => void): { close(): void };
  heartbeatMs: number;
  /** The folder whose repositories' remotes the heartbeat publishes. */
  workspaceRoot: string;
  log(message: string): void;
}

/** The longest a stopping device waits to say so with its last heartbeat. */
const LAST_HEARTBEAT_MS = 1_500;

export class DeviceRuntime {
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;
  /** The heartbeat on its way, if any. */
  private beating: Promise<void> | null = null;
  private stream: { close(): void } | null = null;
  private unwatchLink: (() => void) | null = null;
  private unwatchPresence: (() => void) | null = null;
  private presenceTimer: ReturnType<typeof setTimeout> | null = null;
  /** Set once revoked: the device stops heartbeating and acting. */
  private retired = false;

  constructor(private readonly deps: DeviceRuntimeDeps) {}

  /** Registers a listener for device API events; returns its unsubscribe. */
  subscribe(listener: DeviceApiListener): () => void {
    return this.deps.events.subscribe(listener);
  }

  /** The device's status now: who it is, its backend addresses and whether it reaches them. */
  status(): DeviceStatusView {
    return this.deps.status.view();
  }

  /** The device API this runtime serves. */
  handlers(): DeviceApiHandlers {
    return this.deps.api;
  }

  /** Brings the device up: catch up with the backend, resume owned sessions, heartbeat, stream. */
  async start(): Promise<void> {
    this.unwatchLink = this.deps.status.watch();
    // Reaching the backend or not, and being revoked, change every device's presence as this device shows it.
    this.unwatchPresence = this.deps.link.subscribe(() => {
      if (this.deps.link.revokedAt() !== null) void this.retire();
      this.devicesChanged();
    });
    // Keys rotated while this device was away are fetched before it seals anything (the heartbeat seals its capabilities).
    await this.refreshKeys();
    await this.heartbeat();
    if (this.retired) return;
    await this.catchUp();
    await this.deps.sessions.resumeOwned();
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

  /** Fetches key versions rotated meanwhile (and finishes a rotation a revoke left undone); a failure is logged. */
  private async refreshKeys(): Promise<void> {
    await this.deps.account.refreshKeyRing().catch((error: Error) => this.deps.log(`key refresh failed: ${error.message}`));
  }

  /** Reconcile: keys first, then devices, sessions, handoffs this device should act on. */
  private async catchUp(): Promise<void> {
    const { backend, state, sessions, devices } = this.deps;
    try {
      await this.refreshKeys();
      if (await devices.refresh(backend)) this.devicesChanged();
      const listed = await backend.listSessions();
      // A session whose local record could not be read is rebuilt from the backend, not re-learned as a stranger.
      const unreadable = state.unreadableSessions();
      if (listed.ok) {
        for (const record of listed.value) {
          const why = unreadable.get(record.id);
          if (why !== undefined && !state.readSession(record.id)) await sessions.rebuild(record, why);
          else await sessions.applyRemote(record);
          // Answers to this device's pending permission requests posted while the stream was down.
          const asking = (state.readSession(record.id)?.permissions.pending.length ?? 0) > 0;
          if (asking && record.ownerDeviceId === this.deps.status.identity.deviceId) await this.deps.posts.pull(record.id);
        }
      }
      await this.deps.coordinator.reconcile();
      await this.approveJoins();
    } catch (error) {
      this.deps.log(`reconcile failed: ${(error as Error).message}`);
    }
  }

  private async onPush(message: PushMessage): Promise<void> {
    try {
      switch (message.type) {
        case 'handoff':
          this.deps.coordinator.observe(message.handoff);
          break;
        case 'session':
          await this.deps.sessions.applyRemote(message.session);
          break;
        case 'session-event':
          await this.deps.sessions.pullEvents(message.sessionId, message.seq);
          break;
        case 'session-answer':
          await this.deps.posts.pull(message.sessionId);
          break;
        case 'device':
          this.deps.devices.upsert(message.device);
          this.devicesChanged();
          // This device revoked: its next call is refused, which retires it at once.
          if (message.device.id === this.deps.status.identity.deviceId && message.device.status === 'revoked') void this.heartbeat();
          break;
        case 'join-request':
          if (message.joinRequest.inviterDeviceId === this.deps.status.identity.deviceId && message.joinRequest.status === 'pending')
            await this.approveJoins();
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

  /** Approves the joins made with this device's invites, and tells the UI each invite used up. */
  private async approveJoins(): Promise<void> {
    const used = await this.deps.account.approvePendingJoins().catch(() => []);
    for (const { inviteId, deviceName } of used) this.deps.events.emit('inviteUsed', { inviteId, deviceName, at: Date.now() });
  }

  /** Tells the UI the device list, and wakes up again when some device's presence changes by time alone. */
  private devicesChanged(): void {
    this.deps.events.emit('devicesChanged', this.deps.devices.views());
    if (this.presenceTimer) clearTimeout(this.presenceTimer);
    const next = this.deps.devices.nextPresenceChange();
    if (next === null || this.retired) return;
    this.presenceTimer = setTimeout(() => this.devicesChanged(), Math.max(0, next - Date.now()));
    this.presenceTimer.unref?.();
  }

  /**
   * Publishes reachability and sealed capabilities; `stoppedAt`: the last one, as the device stops.
   * One at a time: a beat asked for while one is on its way is that one (a revoked device is told
   * once, not by two refusals).
   */
  private heartbeat(stoppedAt?: number): Promise<void> {
    if (stoppedAt === undefined && this.beating) return this.beating;
    const beat = this.beat(stoppedAt).finally(() => {
      if (this.beating === beat) this.beating = null;
    });
    if (stoppedAt === undefined) this.beating = beat;
    return beat;
  }

  private async beat(stoppedAt?: number): Promise<void> {
    if (this.retired) return;
    try {
      const { git, providers, seal } = this.deps;
      const [hasGit, available] = await Promise.all([git.available(), providers.list()]);
      const capabilities: DeviceCapabilities = {
        providers: available.filter((p) => p.available).map((p) => p.id),
        git: hasGit,
        remotes: hasGit ? await git.remotesUnder(this.deps.workspaceRoot) : [],
        keyVersions: seal.keyVersions(),
        providerVersions: publishedVersions(available),
        heartbeatMs: this.deps.heartbeatMs,
        ...(stoppedAt === undefined ? {} : { stoppedAt }),
      };
      const sealed = seal.sealJson(capabilities, { kind: 'capabilities', deviceId: this.deps.status.identity.deviceId });
      if (this.retired) return;
      const result = await this.deps.backend.heartbeat(sealed, capabilities.keyVersions);
      if (!result.ok) this.deps.log(`heartbeat refused: ${result.code}`);
    } catch (error) {
      this.deps.log(`heartbeat failed: ${(error as Error).message}`);
    }
  }

  /**
   * The backend refused this device as revoked: it stops heartbeating, streaming, driving moves and
   * running agents (its status says revoked; its views show what it last knew).
   */
  private async retire(): Promise<void> {
    if (this.retired) return;
    this.retired = true;
    this.deps.log('this device was revoked: it stops heartbeating and acting');
    this.stopTimers();
    this.deps.coordinator.stop();
    await this.deps.sessions.stopAll();
  }

  private stopTimers(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.presenceTimer) clearTimeout(this.presenceTimer);
    this.heartbeatTimer = null;
    this.presenceTimer = null;
    this.stream?.close();
    this.stream = null;
  }

  /** Stops heartbeat (saying so with a last one), stream, timers and providers; local state stays for the next start. */
  async stop(): Promise<void> {
    this.stopTimers();
    this.unwatchLink?.();
    this.unwatchPresence?.();
    this.deps.coordinator.stop();
    // The other devices see this one offline at once, not a heartbeat interval or three later.
    const said = this.heartbeat(Date.now());
    await Promise.race([said, new Promise((resolve) => setTimeout(resolve, LAST_HEARTBEAT_MS).unref?.())]);
    await this.deps.sessions.stopAll();
    await this.deps.state.close().catch((error: Error) => this.deps.log(error.message));
  }
}
