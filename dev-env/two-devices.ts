/**
 * Test, demo and bench support: a real backend process and two real device processes ("laptop"
 * creates the account, "desktop" joins by invite) over a git sandbox with a bare origin, and a
 * session to move. Each device is the harness's (gated-device.ts: `baton device` with a file gate a
 * test holds it by, step-holds.ts, and a file of its turns), or the shipped `baton device` itself
 * for a benchmark. Everything lives under one temp root and is removed by `cleanup`.
 */
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TranscriptEntry } from '../shared/agents.ts';
import { TRANSCRIPT_PAGE_MAX, type SessionDetail, type SessionView } from '../shared/device-api.ts';
import { createGitSandbox, type GitSandbox } from './git-sandbox.ts';
import { announcedKey, DeviceClient, PROJECT_ROOT, startBaton, startScript, waitFor, type RunningProcess } from './process-harness.ts';

/** The harness's device entry. */
const GATED_DEVICE = join(PROJECT_ROOT, 'dev-env', 'gated-device.ts');

export interface DeviceHandle {
  name: string;
  profile: string;
  workspaceRoot: string;
  process: RunningProcess;
  client: DeviceClient;
  /** Extra environment this device runs with (on top of the shared env). */
  env: NodeJS.ProcessEnv;
  /** The folder of the device's file gate (step-holds.ts: `holdAt`); unused by a shipped device. */
  gateDir: string;
  /** The file its turns are appended to (turn-records.ts); never written by a shipped device. */
  turnFile: string;
}

export interface TwoDevices {
  sandbox: GitSandbox;
  env: NodeJS.ProcessEnv;
  backendData: string;
  backend: RunningProcess;
  /** Every backend instance (one, or `instances` on the database); `backend` is the first. */
  backends: RunningProcess[];
  backendUrl: string;
  /** The addresses both devices are given (`--backend`): the backend's own unless `backendAddresses` made others. */
  deviceBackends: string[];
  /** The backend key the devices pinned (`tls`: the laptop at account creation, the desktop from the invite); else none. */
  backendPins: string[];
  laptop: DeviceHandle;
  desktop: DeviceHandle;
  /** The laptop's clone of the origin (the session workspace). */
  repo: string;
  origin: string;
  /** Starts (or restarts) a device on its profile; `join` only the first time. */
  startDevice(handle: Pick<DeviceHandle, 'name' | 'profile' | 'workspaceRoot' | 'env'>, extraArgs?: string[]): Promise<DeviceHandle>;
  restartBackend(): Promise<void>;
  cleanup(): Promise<void>;
}

export interface TwoDevicesOptions {
  /** Environment knobs for both devices (BATON_*). */
  env?: NodeJS.ProcessEnv;
  laptopEnv?: NodeJS.ProcessEnv;
  desktopEnv?: NodeJS.ProcessEnv;
  prefix?: string;
  /** The addresses the devices use, made from the backend's (e.g. relays in front of it); default: that one. */
  backendAddresses?: (backendUrl: string) => Promise<string[]>;
  /** Extra `baton backend` flags, e.g. ['--max-blob-mib', '1']. */
  backendArgs?: string[];
  /** Addresses per device (each over its own link to the backend); overrides `backendAddresses`. */
  backendAddressesPerDevice?: (backendUrl: string) => Promise<Record<'laptop' | 'desktop', string[]>>;
  /** Where the backend listens (`--host`, default 127.0.0.1) and the argv prefix it is started with (e.g. `ip netns exec NAME`). */
  backendHost?: string;
  backendLauncher?: readonly string[];
  /**
   * Run the backend on this PostgreSQL database as `instances` processes (default 2) instead of one on
   * a data folder; the devices are given every instance's address, the first one first.
   */
  database?: string;
  instances?: number;
  /** Run the shipped `baton device` rather than the harness's gated device (benchmarks: the product as shipped). */
  shipped?: boolean;
  /** Serve the backend over HTTPS with a key of its own (`--tls self-signed`), which the devices pin. */
  tls?: boolean;
}

/** Starts the backend and both devices, the desktop joined by an invite the laptop made. */
export async function startTwoDevices(options: TwoDevicesOptions = {}): Promise<TwoDevices> {
  const sandbox = createGitSandbox(options.prefix ?? 'baton-runtime-');
  const env: NodeJS.ProcessEnv = { ...sandbox.env, BATON_HEARTBEAT_MS: '1000', ...options.env };
  const origin = sandbox.makeOrigin('app');
  const laptopRoot = join(sandbox.root, 'laptop-ws');
  const desktopRoot = join(sandbox.root, 'desktop-ws');
  mkdirSync(laptopRoot, { recursive: true });
  mkdirSync(desktopRoot, { recursive: true });
  const repo = sandbox.clone(origin, join(laptopRoot, 'app'));
  const backendData = join(sandbox.root, 'backend-data');
  const storageArgs = [
    ...(options.database ? ['--database', options.database] : ['--data', backendData]),
    ...(options.tls ? ['--tls', 'self-signed'] : []),
    ...(options.backendArgs ?? []),
  ];
  const backendArgs = (port: string) => ['backend', ...storageArgs, '--host', options.backendHost ?? '127.0.0.1', '--port', port];
  const startBackend = (port: string) => startBaton(backendArgs(port), 'backend: ', env, undefined, options.backendLauncher);
  const backends = await Promise.all(Array.from({ length: options.database ? (options.instances ?? 2) : 1 }, () => startBackend('0')));
  let backend = backends[0]!;
  const backendUrl = backend.url;
  const key = announcedKey(backend);
  const backendPins = key === null ? [] : [key];
  const deviceBackends = options.backendAddresses ? await options.backendAddresses(backendUrl) : backends.map((b) => b.url);
  const perDevice = options.backendAddressesPerDevice ? await options.backendAddressesPerDevice(backendUrl) : null;
  const processes = new Set<RunningProcess>(backends);
  const clients = new Set<DeviceClient>();

  const startDevice: TwoDevices['startDevice'] = async (handle, extraArgs = []) => {
    const args = [
      'device',
      '--profile',
      handle.profile,
      '--backend',
      (perDevice?.[handle.name as 'laptop' | 'desktop'] ?? deviceBackends).join(','),
      '--name',
      handle.name,
      '--workspace-root',
      handle.workspaceRoot,
      ...extraArgs,
    ];
    const gateDir = join(sandbox.root, `${handle.name}-gate`);
    const turnFile = join(sandbox.root, `${handle.name}-turns.jsonl`);
    mkdirSync(gateDir, { recursive: true });
    const deviceEnv = { ...env, ...handle.env };
    const process = options.shipped
      ? await startBaton(args, 'ui: ', deviceEnv)
      : await startScript(GATED_DEVICE, ['--gate-dir', gateDir, '--turn-file', turnFile, ...args.slice(1)], 'ui: ', deviceEnv);
    processes.add(process);
    process.child.once('exit', () => processes.delete(process));
    const client = await DeviceClient.connect(process.url);
    clients.add(client);
    return { ...handle, process, client, gateDir, turnFile };
  };

  const laptopSpec = {
    name: 'laptop',
    profile: join(sandbox.root, 'laptop-profile'),
    workspaceRoot: laptopRoot,
    env: options.laptopEnv ?? {},
  };
  const desktopSpec = {
    name: 'desktop',
    profile: join(sandbox.root, 'desktop-profile'),
    workspaceRoot: desktopRoot,
    env: options.desktopEnv ?? {},
  };
  // The laptop pins the key its backend printed; the desktop takes it from the invite.
  const pinArgs = backendPins.length > 0 ? ['--backend-pin', backendPins.join(',')] : [];
  const laptop = await startDevice(laptopSpec, ['--create-account', ...pinArgs]);
  const { invite } = await laptop.client.take('createInvite', {});
  const desktop = await startDevice(desktopSpec, ['--join', invite]);

  const world: TwoDevices = {
    sandbox,
    env,
    backendData,
    backend,
    backends,
    backendUrl,
    deviceBackends,
    backendPins,
    laptop,
    desktop,
    repo,
    origin,
    startDevice,
    async restartBackend() {
      const port = new URL(backendUrl).port;
      backend = await startBackend(port);
      processes.add(backend);
      world.backend = backend;
    },
    async cleanup() {
      for (const client of clients) client.close();
      await Promise.all([...processes].map((p) => p.stop(5000)));
      sandbox.cleanup();
    },
  };
  return world;
}

/** Starts a demo-agent session on `device` in `workspace` and waits until its first turn ended. */
export async function startDemoSession(
  device: DeviceHandle,
  workspace: string,
  prompt = 'Look around the repository',
): Promise<SessionView> {
  const session = await device.client.take('startSession', { workspace, provider: 'demo', prompt, title: 'Fix the flaky parser test' });
  await waitFor('the first demo turn', async () => {
    const detail = await device.client.call('getSession', { sessionId: session.id });
    return detail?.transcript.some((e) => e.role === 'assistant') ? true : undefined;
  });
  return session;
}

/** Waits until `device` sees `otherName` as an eligible move target for the session. */
export async function waitEligible(device: DeviceHandle, sessionId: string, otherName: string): Promise<void> {
  await waitFor(
    `${otherName} to become eligible`,
    async () => {
      const list = await device.client.call('moveEligibility', { sessionId });
      return list.find((e) => e.name === otherName)?.eligible ? true : undefined;
    },
    30_000,
    200,
  );
}

/** The device's id, as its own status says. */
export async function deviceId(device: DeviceHandle): Promise<string> {
  return (await device.client.call('getStatus', {})).deviceId ?? '';
}

/** Waits until `probe(detail)` holds on the device's view of the session. */
export async function waitSession(
  device: DeviceHandle,
  sessionId: string,
  what: string,
  probe: (detail: SessionDetail) => boolean,
  timeoutMs = 30_000,
): Promise<SessionDetail> {
  let last: SessionDetail | null = null;
  try {
    return await waitFor(
      what,
      async () => {
        last = await device.client.call('getSession', { sessionId });
        return last && probe(last) ? last : undefined;
      },
      timeoutMs,
      100,
    );
  } catch (error) {
    // Say what the device saw and logged, so a failure on a busy machine can be read afterwards.
    const seen = JSON.stringify(last, (key, value: unknown) => (key === 'transcript' ? undefined : value));
    throw new Error(
      `${(error as Error).message}\n${device.name} last saw: ${seen}\n${device.name} log:\n${device.process.stderr().slice(-4000)}`,
    );
  }
}

/** The device's whole transcript of the session, read page by page (a session's detail carries only its newest window). */
export async function fullTranscript(device: DeviceHandle, sessionId: string): Promise<TranscriptEntry[]> {
  const entries: TranscriptEntry[] = [];
  for (;;) {
    const page = await device.client.call('readTranscript', { sessionId, from: entries.length, count: TRANSCRIPT_PAGE_MAX });
    if (!page) throw new Error(`${device.name} does not know session ${sessionId}`);
    entries.push(...page.entries);
    if (page.entries.length === 0 || entries.length >= page.total) return entries;
  }
}

/** Every blob body stored under a backend data folder (files named by their SHA-256). */
export function backendBlobFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...backendBlobFiles(path));
    else if (/^[0-9a-f]{64}$/.test(name)) found.push(path);
  }
  return found;
}
