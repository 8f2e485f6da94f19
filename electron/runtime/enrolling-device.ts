/**
 * A device from its first run on: before enrollment it answers the first-run calls (create an
 * account, join with an invite) itself; once enrolled it runs the device runtime
 * (electron/runtime/compose.ts) and delegates every call and event to it. The Electron window and
 * the headless `baton device` both serve this one.
 */
import type { DeviceApiEvent, DeviceApiHandlers, DeviceStatusView } from '../../shared/device-api.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import { createAccount, type EnrollmentDeps } from '../enrollment/account.ts';
import { requestJoin } from '../enrollment/join.ts';
import { loadProfile, setBackendUrls, type Profile } from '../enrollment/profile.ts';
import { syncEnrollmentBackendFactory } from '../enrollment/sync-backend.ts';
import type { SecretStore } from '../crypto/secret-store.ts';
import type { BackendHost } from '../hosting/backend-host.ts';
import { createHostedAccount, startHosting, type HostingSetup } from '../hosting/hosted-startup.ts';
import { composeDeviceRuntime, type ComposeOptions } from './compose.ts';
import { checkBackendKeys } from './device-api/backend-keys.ts';
import type { DeviceRuntime } from './device-runtime.ts';

type Listener = (event: DeviceApiEvent, payload: unknown) => void;

export interface EnrollingDeviceOptions {
  profileDir: string;
  secretStore(profileDir: string): SecretStore;
  /** How the runtime runs once enrolled (the profile and its backend come from the enrollment). */
  runtime: Omit<ComposeOptions, 'profile'>;
  /**
   * The backend addresses the host was given (command line, app settings), or none: an enrolled
   * profile uses and keeps them instead of its stored ones, and the first-run screen offers them.
   */
  backendUrls?: readonly string[] | null;
  /** The device name the first-run screen offers before enrollment (null: none). */
  suggestedDeviceName?: string | null;
  /**
   * Where a backend this device hosts for its account keeps its data, and what runs it: an account
   * created with no backend address is hosted here. None: this device hosts no backend.
   */
  hosting?: HostingSetup | null;
}

/** Timings of a device people use (the headless command lets the environment override each). */
export const DEFAULT_RUNTIME_TIMING = {
  heartbeatMs: 5_000,
  config: { prepareTimeoutMs: 30_000, claimTimeoutMs: 120_000, turnWaitMs: 10_000 },
} as const;

export interface EnrollingDevice {
  /** The current handlers (first-run ones until enrolled, the runtime's after). */
  handlers(): DeviceApiHandlers;
  subscribe(listener: Listener): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const NOT_ENROLLED = 'This device is not enrolled yet: create an account or join one with an invite first.';

/** The readiness answer of a device that owns nothing yet. */
function notEnrolledReport(): ReadinessReport {
  return {
    ready: false,
    repos: [],
    evaluatedAt: Date.now(),
    blockers: [{ code: 'not_owner', message: NOT_ENROLLED, fix: 'Create an account or join one with an invite on the set-up screen.' }],
  };
}

/** Creates the device; call start() once the host is ready to serve it. */
export function createEnrollingDevice(options: EnrollingDeviceOptions): EnrollingDevice {
  const listeners = new Set<Listener>();
  const emit: Listener = (event, payload) => listeners.forEach((listener) => listener(event, payload));
  const deps: EnrollmentDeps = { backend: syncEnrollmentBackendFactory, secretStore: options.secretStore };
  let runtime: DeviceRuntime | null = null;
  let unsubscribeRuntime: (() => void) | null = null;
  /** The backend this device hosts (started before the runtime, stopped after it), if it hosts one. */
  let host: BackendHost | null = null;
  const log = options.runtime.log;
  /** Aborted on stop: a join still waiting for approval stops waiting. */
  const stopping = new AbortController();
  let status: DeviceStatusView = {
    enrolled: false,
    deviceId: null,
    deviceName: options.suggestedDeviceName ?? null,
    accountId: null,
    backendUrls: [...(options.backendUrls ?? [])],
    reachability: null,
    backendKey: null,
    backendHome: null,
    joining: false,
    revokedAt: null,
    moveSettings: null,
  };

  async function run(profile: Profile): Promise<DeviceStatusView> {
    runtime = composeDeviceRuntime({ ...options.runtime, profile, hosting: host });
    unsubscribeRuntime = runtime.subscribe(emit);
    await runtime.start();
    status = await runtime.handlers().getStatus({});
    emit('statusChanged', status);
    return status;
  }

  async function enroll(attempt: () => Promise<Result<Profile>>, joining: boolean): Promise<Result<DeviceStatusView>> {
    if (runtime) return ok(status);
    status = { ...status, joining };
    emit('statusChanged', status);
    const enrolled = await attempt();
    if (!enrolled.ok) {
      status = { ...status, joining: false };
      emit('statusChanged', status);
      return fail(enrolled.code, enrolled.message);
    }
    return ok(await run(enrolled.value));
  }

  /** Tells the host which addresses an enrollment kept (the app keeps them in its settings). */
  const kept = (result: Result<DeviceStatusView>): Result<DeviceStatusView> => {
    if (result.ok) options.runtime.onBackendUrlsChanged?.(result.value.backendUrls);
    return result;
  };

  // Before enrollment every act is refused as a value with one code; reads answer empty.
  const notEnrolled = fail('not_enrolled', NOT_ENROLLED);
  const refuse = async () => notEnrolled;
  const refuseWithReport = async () => ({ result: notEnrolled, report: notEnrolledReport() });
  /** An account on a backend this device hosts (none given): the backend first, then the account on it. */
  async function hostedAccount(deviceName: string): Promise<Result<Profile>> {
    if (!options.hosting) return fail('no_backend', 'Give the address of the sync backend to create the account on.');
    const created = await createHostedAccount(options.profileDir, deviceName, options.hosting, deps, log);
    if (!created.ok) return created;
    host = created.value.host;
    return ok(created.value.profile);
  }

  const firstRun: DeviceApiHandlers = {
    getStatus: async () => status,
    createAccount: ({ backendUrls, deviceName, backendPins }) =>
      enroll(
        () => (backendUrls ? createAccount(options.profileDir, backendUrls, deviceName, deps, backendPins) : hostedAccount(deviceName)),
        false,
      ).then(kept),
    joinAccount: ({ invite, deviceName, backendUrls }) =>
      enroll(
        () =>
          requestJoin(options.profileDir, invite, deviceName, deps, { signal: stopping.signal, ...(backendUrls ? { backendUrls } : {}) }),
        true,
      ).then(kept),
    listProviders: async () => [],
    listSessions: async () => [],
    getSession: async () => null,
    readTranscript: async () => null,
    startSession: refuse,
    answerPermission: refuse,
    interruptTurn: refuse,
    listAgentSessions: refuse,
    adoptSession: refuse,
    sendMessage: refuse,
    listDevices: async () => [],
    moveEligibility: async () => [],
    checkReadiness: async () => notEnrolledReport(),
    startMove: refuse,
    cancelMove: refuse,
    switchAgent: refuse,
    pushRepo: refuseWithReport,
    commitAll: refuseWithReport,
    retryActivation: refuse,
    moveHere: refuse,
    handoffHistory: async () => [],
    forkSession: refuse,
    createInvite: refuse,
    revokeDevice: refuse,
    rotateKeys: refuse,
    // Before enrollment the addresses are only what the set-up screen offers.
    setBackendUrls: async ({ backendUrls }) => {
      status = { ...status, backendUrls };
      emit('statusChanged', status);
      return ok(status);
    },
    // First contact: the set-up screen shows each address's key before the account is made on it.
    checkBackendKeys: ({ backendUrls }) => checkBackendKeys(backendUrls),
    pinBackendKeys: refuse,
    shareBackend: refuse,
    setMoveSettings: refuse,
  };

  return {
    handlers: () => (runtime ? runtime.handlers() : firstRun),
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async start() {
      const loaded = loadProfile(options.profileDir, options.secretStore(options.profileDir));
      if (!loaded.ok || loaded.value.info.status !== 'enrolled') return;
      const profile = loaded.value;
      const given = options.backendUrls && options.backendUrls.length > 0 ? options.backendUrls : null;
      if (options.hosting) host = await startHosting(profile, options.hosting, given, log, options.runtime.onBackendUrlsChanged);
      if (!host && given) setBackendUrls(profile, given);
      await run(profile);
    },
    async stop() {
      stopping.abort();
      unsubscribeRuntime?.();
      await runtime?.stop();
      runtime = null;
      // After the runtime: its last words (stopping, its last records) reach the backend it hosts.
      await host?.stop();
    },
  };
}
