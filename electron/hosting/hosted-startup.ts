/**
 * Starting the backend a device hosts, at the two moments it starts: when an enrolled device that
 * hosts its account's backend starts (before its runtime, so it reaches it at once), and when a new
 * device creates an account with no backend given (the backend first, then the account on it).
 * Either way the device uses it at its loopback address and pins its key.
 */
import { DEFAULT_HOSTED_PORT } from '../../shared/hosting.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import { createAccount, type EnrollmentDeps } from '../enrollment/account.ts';
import { saveProfile, setBackendPins, setBackendUrls, type HostingRecord, type Profile } from '../enrollment/profile.ts';
import { BackendHost } from './backend-host.ts';
import type { HostingEngine } from './hosting-engine.ts';

/** Where a backend this device hosts keeps its data (beside its profile), and what runs it. */
export interface HostingSetup {
  dataDir: string;
  engine: HostingEngine;
  /** The port its first start takes when free (default 8787). */
  port?: number;
}

/** Keeps the record in `profile` (saved), for a host made before the profile existed once there is one. */
class RecordKeeper {
  private profile: Profile | null = null;
  constructor(private record: HostingRecord | null) {}

  keep = (record: HostingRecord | null): void => {
    this.record = record;
    if (!this.profile) return;
    this.profile.info = { ...this.profile.info, hosting: record };
    saveProfile(this.profile);
  };

  into(profile: Profile): void {
    this.profile = profile;
    this.keep(this.record);
  }
}

/**
 * The host of the backend the enrolled `profile` hosts, started (or failed, as its view says), with
 * the profile pointed at it and pinning its key; null when the profile hosts none, or when addresses
 * given at start (`given`) point it elsewhere — then it hosts none from now on (its data stays).
 * `onAddresses` hears new addresses the profile took.
 */
export async function startHosting(
  profile: Profile,
  setup: HostingSetup,
  given: readonly string[] | null,
  log: (message: string) => void,
  onAddresses?: (urls: readonly string[]) => void,
): Promise<BackendHost | null> {
  const record = profile.info.hosting;
  if (record === null) return null;
  if (given !== null && given.join(',') !== profile.info.backendUrls.join(',')) {
    profile.info = { ...profile.info, hosting: null };
    saveProfile(profile);
    log(
      `this device now uses the sync backend at ${given.join(', ')} and hosts none; the one it hosted keeps its data in ${record.dataDir}`,
    );
    return null;
  }
  const keeper = new RecordKeeper(record);
  keeper.into(profile);
  const host = new BackendHost({ engine: setup.engine, record, keep: keeper.keep, log });
  const started = await host.start();
  if (started.ok) {
    // Its own backend's key is the one to pin (a backend folder restored from a backup keeps its key).
    if (!profile.info.backendPins.includes(started.value.pin)) setBackendPins(profile, [started.value.pin]);
    if (setBackendUrls(profile, [started.value.url])) onAddresses?.([started.value.url]);
  }
  return host;
}

/**
 * Creates the account of a new device on a backend it hosts itself: starts the backend (data in
 * `setup.dataDir`, this machine only), creates the account there pinning its key, and keeps the
 * hosting in the profile. On failure the backend is stopped again and nothing is kept.
 */
export async function createHostedAccount(
  profileDir: string,
  deviceName: string,
  setup: HostingSetup,
  deps: EnrollmentDeps,
  log: (message: string) => void,
): Promise<Result<{ profile: Profile; host: BackendHost }>> {
  const keeper = new RecordKeeper(null);
  const record: HostingRecord = { dataDir: setup.dataDir, port: setup.port ?? DEFAULT_HOSTED_PORT, shared: false };
  const host = new BackendHost({ engine: setup.engine, record, keep: keeper.keep, log });
  const started = await host.start();
  if (!started.ok) return fail(started.code, `The sync backend could not start on this device: ${started.message}`);
  const created = await createAccount(profileDir, [started.value.url], deviceName, deps, [started.value.pin]);
  if (!created.ok) {
    await host.stop();
    return created;
  }
  keeper.into(created.value);
  log(`this device hosts the account's sync backend (data in ${setup.dataDir}), on this machine only for now`);
  return ok({ profile: created.value, host });
}
