/**
 * `baton device`: runs one device headless — enrolls it (create the account, join by invite, an
 * already enrolled profile, or the first-run screen when none of these), starts its runtime, and
 * serves the renderer and the device API on 127.0.0.1. Prints exactly one line on stdout once
 * ready: `ui: http://127.0.0.1:PORT/?token=TOKEN`.
 */
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { loadUiAddress, saveUiAddress, uiToken } from '../electron/host/ui-address.ts';
import { startWebHost, type WebHost, type WebHostOptions } from '../electron/host/web-host.ts';
import { syncEnrollmentBackendFactory } from '../electron/enrollment/sync-backend.ts';
import { fileSecretStore } from '../electron/crypto/secret-store.ts';
import { createEnrollingDevice, DEFAULT_RUNTIME_TIMING } from '../electron/runtime/enrolling-device.ts';
import type { ComposeOptions } from '../electron/runtime/compose.ts';
import { enrollAtStartup } from '../electron/runtime/device-startup.ts';
import { parseBackendList, plainHttpBeyondLoopback } from '../shared/backend-addresses.ts';
import { INLINE_CHECKPOINT_MAX_BYTES } from '../shared/api/handoffs.ts';
import { parseKeyFingerprints } from '../shared/backend-keys.ts';
import { lockProfile, type ProfileLock } from '../electron/enrollment/profile-lock.ts';
import { parseFlags, portFlag, required, untilStopped, UsageError, type Command } from './command.ts';
import { adoptLocalBackend, defaultBackendData, deviceHosting } from './device-hosting.ts';
import { ensureRendererBuilt, RENDERER_DIR } from './project-files.ts';

const USAGE = `Usage: baton device --profile DIR [--backend URL[,URL…] [--backend-pin KEY[,KEY…]]] [--backend-data DIR]
                    [--name NAME] [--workspace-root DIR] [--port N] [--create-account | --join INVITE]

Runs a device headless. Once its UI and API are served it prints one line:
  ui: http://127.0.0.1:PORT/?token=TOKEN
The port and token are kept in the profile, so the address stays the same across restarts (a
bookmark of it keeps working); \`baton open --profile DIR\` prints it again. One process at a time
runs a profile: a second is refused, naming the one that runs.
A profile that is not enrolled yet, started with neither --create-account nor --join, shows the
first-run screen there: create an account (on a backend this device hosts, or on the --backend
addresses) or join with an invite.
Without --backend, a device that creates an account hosts the account's backend itself (over HTTPS,
its data in --backend-data, listening on this machine only until Devices lets other machines reach
it), and runs it while the device runs. A device that joins uses the invite's addresses.
SIGTERM stops it cleanly; starting it again on the same profile resumes everything it was doing.

  --profile DIR          the device profile folder (keys, enrollment, local state)
  --backend URL[,URL…]   a sync backend run elsewhere: one address, or several instances of one
                         backend (e.g. https://10.0.0.5:8787,https://10.0.0.6:8787) tried in order —
                         the device sticks to one that answers and fails over to the next when it
                         cannot be reached, times out or answers 5xx. Saved in the profile: the
                         addresses given are the ones used (a device hosting its backend then hosts
                         none). Optional: a join takes the invite's, an enrolled profile its saved ones
  --backend-pin KEY[,KEY…]  the backend keys to accept over https (sha256:…, as \`baton backend\`
                         prints them); nothing is sent to a backend presenting another, nor to an
                         http:// address while any key is pinned. Needed to create an account on a
                         self-signed backend; a join takes the invite's; for an enrolled profile it
                         replaces the saved ones (a re-pin). Without pins the system's trust store
                         decides (a public CA's certificate)
  --backend-data DIR     where the backend this device hosts keeps its data (default: DIR/backend of
                         the profile)
  --name NAME            the device name (default: this host's name)
  --workspace-root DIR   where repositories are found and cloned (default: DIR/workspaces)
  --port N               the UI port on 127.0.0.1 (default: the one kept in the profile, else a free
                         one; 0 picks a free one)
  --create-account       create a new account with this device as its first device
  --join INVITE          join the account of an invite made with \`baton invite\` on an enrolled device

Environment (tuning and tests):
  BATON_HEARTBEAT_MS            heartbeat interval (default 5000)
  BATON_PREPARE_TIMEOUT_MS      target must prepare within this, else the source cancels (default 30000)
  BATON_CLAIM_TIMEOUT_MS        target must claim the checkpoint within this (default 120000)
  BATON_TURN_WAIT_MS            how long the source waits for a running turn before interrupting (default 10000)
  BATON_DEMO_TURN_MS            length of one demo-agent turn (default 300)
  BATON_INLINE_CHECKPOINT_BYTES the largest sealed checkpoint sent in its transition, not uploaded first (default 262144; 0: never)
  BATON_NO_UI_BUILD=1           do not build the user interface when it is missing (serve the API only)`;

/** A non-negative integer (of `unit`) from the environment, or the fallback. */
function envMs(name: string, fallback: number, unit = 'milliseconds'): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new UsageError(`${name} must be a non-negative integer of ${unit}, got ${raw}`);
  return value;
}

/** The --backend addresses, or null when the flag is absent; a malformed list is a usage error in words. */
function backendFlag(value: string | boolean | undefined): string[] | null {
  if (value === undefined) return null;
  const parsed = parseBackendList(typeof value === 'string' ? value : '');
  if (!parsed.ok)
    throw new UsageError(
      `--backend takes one or more http(s) addresses separated by commas, e.g. http://10.0.0.5:8787,http://10.0.0.6:8787: ${parsed.message}`,
    );
  return parsed.value;
}

/**
 * Starts the web host on the kept (or given) port and keeps the address it got in the profile. A
 * kept port another process holds now gives way to a free one (`keptPort`: the port was not asked
 * for with --port, which is used or refused as given).
 */
async function startKeptHost(profileDir: string, keptPort: boolean, options: WebHostOptions): Promise<WebHost> {
  let host: WebHost;
  try {
    host = await startWebHost(options);
  } catch (error) {
    if (!keptPort || options.port === 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    host = await startWebHost({ ...options, port: 0 });
    console.error(`baton device: port ${options.port}, kept from the last start, is in use now; the UI moved to port ${host.port}.`);
  }
  saveUiAddress(profileDir, { port: host.port, token: host.token });
  return host;
}

/** The --backend-pin fingerprints, or null when the flag is absent; a malformed one is a usage error. */
function pinFlag(value: string | boolean | undefined): string[] | null {
  if (value === undefined) return null;
  const parsed = parseKeyFingerprints(typeof value === 'string' ? value : '');
  if (!parsed.ok) throw new UsageError(`--backend-pin takes the backend key's fingerprint(s), separated by commas: ${parsed.message}`);
  return parsed.value;
}

/** What a device may be built with beyond its flags: nothing for `baton device`; the test harness's device entry (dev-env/gated-device.ts) hands in its gate and turn observer. */
export type DeviceSeam = Pick<ComposeOptions, 'gate' | 'observeTurn'>;

/**
 * Runs the headless device of `argv` (the `baton device` flags) until SIGTERM; resolves to the exit
 * code. Throws a UsageError for flags it cannot use.
 */
export async function runDevice(argv: string[], seam: DeviceSeam = {}): Promise<number> {
  const { values } = parseFlags(argv, {
    profile: { type: 'string' },
    backend: { type: 'string' },
    'backend-pin': { type: 'string' },
    'backend-data': { type: 'string' },
    name: { type: 'string' },
    'workspace-root': { type: 'string' },
    port: { type: 'string' },
    'create-account': { type: 'boolean' },
    join: { type: 'string' },
  });
  const profileDir = resolve(required(values, 'profile'));
  const backendUrls = backendFlag(values.backend);
  const backendPins = pinFlag(values['backend-pin']);
  if (values['create-account'] && values.join !== undefined) throw new UsageError('--create-account and --join cannot be used together');
  const backendData = resolve(typeof values['backend-data'] === 'string' ? values['backend-data'] : defaultBackendData(profileDir));
  const kept = loadUiAddress(profileDir);
  const port = portFlag(values.port, kept?.port ?? 0);
  const name = typeof values.name === 'string' && values.name !== '' ? values.name : hostname();
  const workspaceRoot = resolve(typeof values['workspace-root'] === 'string' ? values['workspace-root'] : join(profileDir, 'workspaces'));
  const defaults = DEFAULT_RUNTIME_TIMING;
  const config = {
    prepareTimeoutMs: envMs('BATON_PREPARE_TIMEOUT_MS', defaults.config.prepareTimeoutMs),
    claimTimeoutMs: envMs('BATON_CLAIM_TIMEOUT_MS', defaults.config.claimTimeoutMs),
    turnWaitMs: envMs('BATON_TURN_WAIT_MS', defaults.config.turnWaitMs),
    inlineCheckpointBytes: envMs('BATON_INLINE_CHECKPOINT_BYTES', INLINE_CHECKPOINT_MAX_BYTES, 'bytes'),
  };
  const heartbeatMs = envMs('BATON_HEARTBEAT_MS', defaults.heartbeatMs) || defaults.heartbeatMs;
  const demoTurnMs = envMs('BATON_DEMO_TURN_MS', 300);

  const lock = lockProfile(profileDir, 'baton device');
  if (!lock.ok) {
    console.error(`baton device: ${lock.message}`);
    return 1;
  }
  const timing = { config, heartbeatMs, demoTurnMs };
  try {
    return await serveDevice({
      profileDir,
      backendUrls,
      backendPins,
      backendData,
      name,
      workspaceRoot,
      port,
      kept,
      values,
      seam,
      timing,
      lock: lock.value,
    });
  } finally {
    lock.value.release();
  }
}

/** What `serveDevice` runs: the flags as read, the seam, the timings, and the profile's lock it holds. */
interface ServeOptions {
  profileDir: string;
  backendUrls: string[] | null;
  backendPins: string[] | null;
  backendData: string;
  name: string;
  workspaceRoot: string;
  port: number;
  kept: ReturnType<typeof loadUiAddress>;
  values: Record<string, string | boolean | undefined>;
  seam: DeviceSeam;
  timing: { config: ComposeOptions['config']; heartbeatMs: number; demoTurnMs: number };
  lock: ProfileLock;
}

/** Enrolls (or not), starts the device and serves its UI until SIGTERM, holding the profile's lock. */
async function serveDevice(o: ServeOptions): Promise<number> {
  const { profileDir, backendUrls, backendPins, name, values } = o;
  // Without --backend, a new account is hosted here: made once the device runs (as from the set-up screen).
  const hostedAccount = values['create-account'] === true && backendUrls === null;
  if (backendUrls === null && adoptLocalBackend(profileDir, o.backendData))
    console.error(`baton device: this device hosts the sync backend whose data is in ${o.backendData} (now over HTTPS)`);
  if (typeof values.join === 'string')
    console.error('baton device: joining with the invite; the inviting device must be running to approve it…');
  const stopping = new AbortController();
  const stopped = untilStopped().then(() => stopping.abort());
  const enrolled = await enrollAtStartup(
    {
      profileDir,
      backendUrls,
      backendPins,
      name,
      createAccount: values['create-account'] === true && !hostedAccount,
      join: typeof values.join === 'string' ? values.join : null,
      signal: stopping.signal,
    },
    { backend: syncEnrollmentBackendFactory },
  );
  if (stopping.signal.aborted) return 0;
  // A profile that is not enrolled yet, started without a flag, gets the first-run screen.
  if (!enrolled.ok && enrolled.code !== 'not_enrolled') {
    console.error(`baton device: ${enrolled.message}`);
    return 1;
  }
  let deviceName = enrolled.ok ? enrolled.value.info.name : name;
  const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 23)} [${deviceName}] ${message}`);
  const plain = plainHttpBeyondLoopback(enrolled.ok ? enrolled.value.info.backendUrls : (backendUrls ?? []));
  if (plain.length > 0)
    console.error(
      `baton device: warning: ${plain.join(', ')} is plain HTTP beyond this machine: ids, states and sizes cross the network ` +
        "readable; use the backend's https address (baton backend --tls …), or a proxy in front that terminates TLS",
    );
  const { config, heartbeatMs, demoTurnMs } = o.timing;
  const device = createEnrollingDevice({
    profileDir,
    secretStore: fileSecretStore,
    backendUrls,
    suggestedDeviceName: name,
    hosting: deviceHosting(o.backendData, (line) => log(line)),
    runtime: { workspaceRoot: o.workspaceRoot, heartbeatMs, config, log, providers: { demo: { turnMs: demoTurnMs } }, ...o.seam },
  });
  await device.start();
  if (hostedAccount && !enrolled.ok) {
    const created = await device.handlers().createAccount({ deviceName: name });
    if (!created.ok) {
      console.error(`baton device: could not create the account: ${created.message}`);
      await device.stop();
      return 1;
    }
    deviceName = created.value.deviceName ?? name;
  }
  // A plain `npm install` does not build the UI: the first start does, unless told not to.
  if (process.env.BATON_NO_UI_BUILD !== '1') ensureRendererBuilt('baton device');
  const host = await startKeptHost(profileDir, values.port === undefined, {
    port: o.port,
    token: uiToken(o.kept),
    rendererDir: RENDERER_DIR,
    handlers: () => device.handlers(),
    subscribe: (listener) => device.subscribe(listener),
  });
  o.lock.serving(`http://127.0.0.1:${host.port}/`);
  if (!enrolled.ok && !hostedAccount)
    console.error('baton device: not enrolled yet: open the UI to create an account or join one with an invite.');
  console.log(`ui: ${host.url}`);
  await stopped;
  await host.close();
  await device.stop();
  return 0;
}

export const command: Command = {
  summary: 'run a device headless (runtime + UI on 127.0.0.1)',
  usage: USAGE,
  run: (argv) => runDevice(argv),
};
