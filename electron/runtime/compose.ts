/**
 * Composes a DeviceRuntime for an enrolled profile. First the real parts: the signed sync client
 * and push stream, the profile's key ring and enrollment, git, packets and providers, each behind
 * the port it implements (adapters/). Then the runtime's own parts, each built after the parts it
 * uses, telling what they change on one channel (runtime-changes.ts): the session service, the
 * device directory, the handoff coordinator with this device's source and target steps, the views
 * and events the UI gets, move requests, Move here, and the device API handlers (device-api/). The
 * headless device command, the demo and the Electron shell all build their runtime here.
 */
import type { PushMessage } from '../../shared/api/push.ts';
import type { MoveNoticeView } from '../../shared/device-api.ts';
import type { ProviderId, SessionSettings } from '../../shared/provider.ts';
import { redactCredentials } from '../../shared/url-credentials.ts';
import { saveProfile, setBackendPins, setBackendUrls, setMoveSettings, type Profile } from '../enrollment/profile.ts';
import { createGitRunner } from '../git/git-runner.ts';
import type { ActivationDeps } from '../handoff/activation.ts';
import { Coordinator } from '../handoff/coordinator.ts';
import type { HandoffConfig } from '../handoff/handoff-config.ts';
import type { StepGate } from '../handoff/test-seam.ts';
import { moveRequests } from '../handoff/move-request.ts';
import { sourceStep } from '../handoff/source-steps.ts';
import { targetStep } from '../handoff/target-steps.ts';
import { afterLocalWrites } from '../local-state/durable-backend.ts';
import { LocalState } from '../local-state/local-state.ts';
import { createCheckpointPacketPort } from '../packet/checkpoint-packet.ts';
import type { AccountPort } from '../ports/account.ts';
import type { BackendLinkPort, BackendPort } from '../ports/backend.ts';
import type { Clock } from '../ports/clock.ts';
import type { TargetCheck } from '../ports/devices.ts';
import type { GitPort, RemediationPort } from '../ports/git.ts';
import type { HostingPort } from '../ports/hosting.ts';
import { progressSink } from './progress-sink.ts';
import type { PacketPort, ProviderPort } from '../ports/providers.ts';
import type { SealPort } from '../ports/seal.ts';
import type { MoveSettingsPort } from '../ports/settings.ts';
import { detectProviders } from '../providers/detect.ts';
import { listExistingSessions } from '../providers/existing-sessions.ts';
import { createProvider, type ProviderOptions } from '../providers/registry.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { probeAddresses } from '../sync/address-probe.ts';
import { BackendTrust } from '../sync/backend-trust.ts';
import { openPushStream } from '../sync/push-stream.ts';
import { accountPort } from './adapters/account-port.ts';
import { backendPort } from './adapters/backend-port.ts';
import { gitPort } from './adapters/git-port.ts';
import { providerPort } from './adapters/provider-port.ts';
import { remediationPort } from './adapters/remediation-port.ts';
import { profileSeal } from './adapters/seal-port.ts';
import { targetCheck } from './adapters/target-check.ts';
import { deviceApiHandlers } from './device-api/handlers.ts';
import { forkFromHandoff } from './sessions/session-fork.ts';
import { DeviceDirectory } from './device-directory.ts';
import { DeviceEvents } from './device-events.ts';
import { DeviceRuntime } from './device-runtime.ts';
import { DeviceStatus, type BackendHomeRecord, type DeviceIdentity } from './device-status.ts';
import { DeviceViews } from './device-views.ts';
import { MoveBlocks } from './move-blocks.ts';
import { MoveNotices } from './move-notices.ts';
import { MoveHere } from './move-here.ts';
import { MoveService } from './move-service.ts';
import { RuntimeChanges } from './runtime-changes.ts';
import { SessionPosts } from './session-posts.ts';
import { SessionService } from './sessions/session-service.ts';
import type { TurnObserver } from './sessions/turn-observer.ts';

export interface ComposeOptions {
  profile: Profile;
  workspaceRoot: string;
  heartbeatMs: number;
  config: Omit<HandoffConfig, 'workspaceRoot'>;
  providers?: ProviderOptions;
  log(message: string): void;
  /** Told when the device's backend addresses are changed from the UI (after the profile kept them). */
  onBackendUrlsChanged?(urls: readonly string[]): void;
  /** The backend this device hosts for its account (electron/hosting/), started before the runtime; none: it hosts none. */
  hosting?: HostingPort | null;
  /** Asked before each handoff step and commit (handoff/test-seam.ts); none on a shipped device. */
  gate?: StepGate;
  /** Told of each provider turn that starts or ends; none on a shipped device. */
  observeTurn?: TurnObserver;
}

/** The real parts a device runtime is wired from, each behind its port. */
export interface DeviceParts extends Pick<ComposeOptions, 'gate' | 'observeTurn'> {
  identity: DeviceIdentity;
  /** The device's signing key (its answers to other devices' permission requests are signed with it). */
  signer?: { sign(data: Uint8Array): Uint8Array };
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
  /** The backend this device hosts, or the device of the account that hosts the one it uses (shown in the status). */
  home?: { hosting: HostingPort | null; host: BackendHomeRecord | null };
  /** This device's move settings (Carry my changes by default, how much it carries). */
  settings: MoveSettingsPort;
  /** Opens the push stream; `onOpen` runs on every (re)connect, `replayed` when the backend replayed what was missed. */
  openStream(onMessage: (message: PushMessage) => void, onOpen: (opened: { replayed: boolean }) => void): { close(): void };
  clock: Clock;
  heartbeatMs: number;
  config: HandoffConfig;
  log(message: string): void;
}

/** Builds the runtime of an enrolled device (not started). */
export function composeDeviceRuntime(options: ComposeOptions): DeviceRuntime {
  const { profile } = options;
  // Every line the runtime logs can quote a remote URL or a git error: none carries credentials.
  const log = (message: string) => options.log(redactCredentials(message));
  const trust = new BackendTrust(profile.info.backendPins);
  const client = createBackendClient({ baseUrl: profile.info.backendUrls, signer: profile.identity, trust });
  // Git the device runs on its own is guarded; only the remediation's acts run as the user's git.
  const run = createGitRunner();
  // The providers' notes in the transcript name this device: every device of the account reads them.
  const providerOptions: ProviderOptions = { deviceName: profile.info.name, ...options.providers };
  const identity: DeviceIdentity = {
    enrolled: true,
    deviceId: profile.identity.deviceId,
    deviceName: profile.info.name,
    accountId: profile.info.accountId ?? '',
    backendUrls: [...profile.info.backendUrls],
    reachability: null,
    backendKey: null,
    backendHome: null,
    joining: false,
    revokedAt: null,
  };
  const hosting = options.hosting ?? null;
  const host: BackendHomeRecord = {
    get: () => profile.info.backendHost,
    forget() {
      profile.info = { ...profile.info, backendHost: null };
      saveProfile(profile);
    },
  };
  return wireDeviceRuntime({
    identity,
    signer: profile.identity,
    state: new LocalState(profile.dir),
    backend: backendPort(client),
    seal: profileSeal(profile),
    git: gitPort(run),
    remediation: remediationPort(run, createGitRunner({ asUser: true })),
    packets: createCheckpointPacketPort(),
    providers: providerPort({
      detect: () => detectProviders({ env: providerOptions.env ?? process.env, commandArgv: providerOptions.command?.argv ?? null }),
      existing: (id, workspace) => listExistingSessions(id, workspace, providerOptions.env ?? process.env),
      create: (id: ProviderId, settings: SessionSettings) => {
        const made = createProvider(id, providerOptions, settings);
        if (!made.ok) throw new Error(made.message);
        return made.value;
      },
    }),
    targetCheck,
    account: accountPort(profile, client, log, hosting ?? undefined),
    home: { hosting, host },
    link: {
      addresses: () => [...client.addresses.urls],
      setAddresses(urls) {
        setBackendUrls(profile, urls);
        client.addresses.replace(urls);
        options.onBackendUrlsChanged?.(urls);
      },
      // Probed under the same pins, but a key refused there is not one the device met on its own addresses.
      probe: (urls) => probeAddresses(urls, { signer: profile.identity, trust: new BackendTrust(trust.view().pinned) }),
      reachability: () => client.reachability.view(),
      revokedAt: () => client.reachability.revokedAt(),
      longestWait: () => client.reachability.longestWait(),
      subscribe: (listener) => {
        const reach = client.reachability.subscribe(listener);
        const keys = trust.onChange(() => listener(client.reachability.view()));
        return () => [reach, keys].forEach((stop) => stop());
      },
      key: () => trust.view(),
      setPins(pins) {
        setBackendPins(profile, pins);
        trust.setPins(pins);
        // The push stream, maybe backing off after refusals, reconnects at once.
        client.addresses.replace(client.addresses.urls);
      },
    },
    settings: { get: () => profile.info.moveSettings, set: (next) => setMoveSettings(profile, next) },
    openStream: (onMessage, onOpen) => {
      const close = openPushStream(
        client,
        onMessage,
        { onOpen, onError: (e) => log(`push stream: ${e.code} ${e.message}`) },
        { maxBackoffMs: 2000 },
      );
      return { close };
    },
    clock: Date.now,
    heartbeatMs: options.heartbeatMs,
    config: { ...options.config, workspaceRoot: options.workspaceRoot },
    log,
    gate: options.gate,
    observeTurn: options.observeTurn,
  });
}

/**
 * Wires the runtime's own parts over `parts`, each built after the parts it uses: sessions and the
 * device directory, the coordinator and its steps, then the parts that follow what changed (views,
 * blocked moves, notices), moves and Move here, the reader of the sessions' posts, the device API.
 * A part tells what it changed on one channel (runtime-changes.ts); a part that follows changes is
 * subscribed to it once, here.
 */
export function wireDeviceRuntime(parts: DeviceParts): DeviceRuntime {
  const { identity, state, seal, git, packets, providers, clock, log, config, account, link, signer, remediation, settings } = parts;
  // Local records are written behind; nothing reaches the backend before what it relies on is on disk.
  const backend = afterLocalWrites(parts.backend, state);
  const selfId = identity.deviceId;
  const selfName = identity.deviceName;
  const events = new DeviceEvents();
  const changes = new RuntimeChanges();
  // Presence is only what is known now: through a backend this device reaches.
  const devices = new DeviceDirectory(selfId, seal, clock, () => {
    const reach = link.reachability();
    return { reached: reach.state === 'reachable', since: reach.state === 'unreachable' ? reach.since : null };
  });
  const notice = (shown: MoveNoticeView) => events.emit('moveNotice', shown);
  const { observeTurn } = parts;
  const sessions = new SessionService({
    selfId,
    selfName,
    state,
    backend,
    seal,
    git,
    providers,
    clock,
    changes,
    log,
    observeTurn,
    signer,
    devices,
    notice,
  });
  // Long steps (fetch, clone, checkpoint transfer, import) report here: the stepper and the log.
  const progress = progressSink({ emit: (view) => changes.emit('handoffProgress', view), log, clock });
  const activation: ActivationDeps = {
    selfId,
    selfName,
    state,
    backend,
    seal,
    git,
    packets,
    providers,
    sessions,
    config,
    clock,
    log,
    progress,
  };
  const lostSession = (sessionId: string) => sessions.markMoved(sessionId);
  const sourceDeps = { selfId, selfName, state, sessions, git, packets, seal, backend, providers, config, link, settings, clock, log };
  const coordinator = new Coordinator(
    { selfId, progress: state, backend, seal, clock, log, changes, lostSession, gate: parts.gate },
    {
      source: sourceStep({ ...sourceDeps, progress }),
      target: targetStep({ ...activation, state, backend, seal, keys: account, git, providers, sessions, config }),
    },
  );
  const revoked = () => link.revokedAt() !== null;
  const views = new DeviceViews({ selfId, state, seal, devices, sessions, handoffs: coordinator, events, revoked });
  const blocks = new MoveBlocks({ selfId, state, sessions, views, changes, clock, log });
  changes.subscribe(views);
  changes.subscribe(blocks);
  changes.subscribe(new MoveNotices({ views, events, clock }));
  // Revoked, every session's view changes (it takes no input here any more): the UI is told each.
  const unwatchRevoked = link.subscribe(() => {
    if (!revoked()) return;
    unwatchRevoked();
    for (const session of state.readSessions()) changes.emit('sessionChanged', { sessionId: session.id });
  });
  const { targetCheck } = parts;
  const handoffs = coordinator;
  const movers = { selfId, state, backend, seal, git, devices, targetCheck, sessions, handoffs, keys: account, settings, clock };
  const requests = moveRequests(movers);
  const moves = new MoveService({
    selfId,
    selfName,
    state,
    backend,
    git,
    remediation,
    providers,
    devices,
    targetCheck,
    requests,
    handoffs,
    sessions,
    activation,
    views,
    blocks,
    events,
    changes,
    settings,
    clock,
  });
  const start = (sessionId: string, target: string, initiator: string, freshClone: boolean) =>
    moves.start(sessionId, target, { initiatorDeviceId: initiator, freshClone });
  const moveHere = new MoveHere({ selfId, state, backend, seal, signer, devices, handoffs, start, clock, log });
  // What other devices post to a session's log goes to the part that takes its kind.
  const handlers = { 'permission-answer': sessions.answers, 'move-here-request': moveHere };
  const posts = new SessionPosts({ selfId, state, backend, seal, handlers });
  const status = new DeviceStatus(identity, link, events, settings, parts.home);
  const adoption = { selfId, selfName, state, sessions, providers, changes };
  const forks = { ...activation, state, backend, sessions, remediation, changes };
  const fork = (sessionId: string, handoffId: string) => forkFromHandoff(forks, sessionId, handoffId);
  const api = deviceApiHandlers({ sessions, adoption, providers, views, moves, moveHere, status, devices, backend, account, fork });
  const { openStream, heartbeatMs } = parts;
  const workspaceRoot = config.workspaceRoot;
  return new DeviceRuntime({
    state,
    backend,
    seal,
    git,
    providers,
    account,
    sessions,
    posts,
    devices,
    coordinator,
    events,
    status,
    link,
    api,
    openStream,
    heartbeatMs,
    workspaceRoot,
    log,
  });
}
