/**
 * A device profile folder:
 *   profile.json            device id, name, backend addresses and pinned key, where the backend runs (the one this
 *                           device hosts, or the device that hosts it), account id, enrollment status (no secrets)
 *   identity-*.key          the device's private keys (SecretStore, 0600)
 *   adk.keyring             the cached ADK key ring (SecretStore, 0600; the wrapped keys on the backend are the source of truth)
 *   invites.secret          invites this device made and their secrets, until used or expired (SecretStore, 0600)
 */
import { DEFAULT_MOVE_SETTINGS, MoveSettings } from '../../shared/carry.ts';
import type { Failure, Result } from '../../shared/errors.ts';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { BackendUrls } from '../../shared/backend-addresses.ts';
import { BackendPins } from '../../shared/backend-keys.ts';
import {
  AGREEMENT_KEY_NAME,
  loadIdentity,
  loadOrCreateIdentity,
  replaceIdentity,
  SIGNING_KEY_NAME,
  type DeviceIdentity,
} from '../crypto/device-identity.ts';
import { KeyRing } from '../crypto/key-ring.ts';
import { fileSecretStore, readFileOrNull, writeFileAtomic600, type SecretStore } from '../crypto/secret-store.ts';
import { TrustedDevice } from './enrollment-statement.ts';

export const PROFILE_FILE = 'profile.json';
const KEY_RING_SECRET = 'adk.keyring';
const INVITES_SECRET = 'invites.secret';

export const HostingRecord = z.strictObject({
  dataDir: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  shared: z.boolean(),
});
export type HostingRecord = z.infer<typeof HostingRecord>;

export const BackendHostRecord = z.strictObject({ deviceId: z.string().min(1), name: z.string().min(1).max(100) });
export type BackendHostRecord = z.infer<typeof BackendHostRecord>;

export const EnrollmentStatus = z.enum(['new', 'pending', 'enrolled', 'revoked', 'rejected']);
export type EnrollmentStatus = z.infer<typeof EnrollmentStatus>;

const ProfileInfoShape = z.strictObject({
  format: z.literal(1),
  deviceId: z.string(),
  name: z.string().min(1).max(100),
  /** The backend's addresses, tried in order (shared/backend-addresses.ts). */
  backendUrls: BackendUrls,
  /** The backend keys accepted over TLS (shared/backend-keys.ts); none: the system's trust store decides. */
  backendPins: BackendPins.default([]),
  accountId: z.string().nullable(),
  status: EnrollmentStatus,
  /** The join request this device is waiting on (status pending). */
  joinRequestId: z.string().nullable(),
  /** The inviting device and its signing key, kept while a join is pending so it can resume after a restart. */
  inviter: z.strictObject({ deviceId: z.string(), signingPublicKey: z.string() }).nullable(),
  /**
   * The devices this one trusts without the backend's word (enrollment-statement.ts): for a joiner,
   * its inviter and the inviter's own anchors, from the invite line. This device itself is implied.
   */
  trusted: z.array(TrustedDevice).max(64).default([]),
  /**
   * The backend this device hosts for its account (electron/hosting/): its data folder, its port (the
   * same at every start) and whether other machines may reach it. Null: it hosts none.
   */
  hosting: HostingRecord.nullable().default(null),
  /** The device of the account that hosts the backend this device uses (from its invite); null: none does, or this one. */
  backendHost: BackendHostRecord.nullable().default(null),
  /** This device's settings for moves (Carry my changes by default, how much it carries); older profiles: the defaults. */
  moveSettings: MoveSettings.default(DEFAULT_MOVE_SETTINGS),
});

/** A profile written before devices took several addresses has one `backendUrl`: read as a list of one. */
function fromSingleAddress(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || !('backendUrl' in json) || 'backendUrls' in json) return json;
  const { backendUrl, ...rest } = json as { backendUrl: unknown };
  return { ...rest, backendUrls: [backendUrl] };
}

export const ProfileInfo = z.preprocess(fromSingleAddress, ProfileInfoShape);
export type ProfileInfo = z.infer<typeof ProfileInfoShape>;

/** An invite this device made: its id, secret and expiry (secret material). */
export const PendingInvite = z.strictObject({ inviteId: z.string(), secret: z.string(), expiresAt: z.number(), createdAt: z.number() });
export type PendingInvite = z.infer<typeof PendingInvite>;

export interface Profile {
  readonly dir: string;
  readonly store: SecretStore;
  readonly identity: DeviceIdentity;
  info: ProfileInfo;
  ring: KeyRing;
}

/** A profile that is not there or cannot be read, as a value. */
export type ProfileError = Failure<'profile_missing' | 'profile_corrupt'>;

/** Why a profile could not be read, in one line (the first invalid field and why, for a schema failure). */
function unreadable(error: unknown): string {
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    return issue ? `${issue.path.join('.') || 'the file'}: ${issue.message}` : 'invalid';
  }
  return (error as Error).message.split('\n')[0] ?? 'unreadable';
}

/** Loads the profile in `dir`; a missing or unreadable profile is a typed error, never a partial profile. */
export function loadProfile(dir: string, store: SecretStore = fileSecretStore(dir)): Result<Profile, ProfileError['code']> {
  const raw = readFileOrNull(join(dir, PROFILE_FILE));
  if (raw === null) return { ok: false, code: 'profile_missing', message: `no device profile in ${dir}` };
  let info: ProfileInfo;
  let ring: KeyRing;
  try {
    info = ProfileInfo.parse(JSON.parse(raw.toString('utf8')));
    const storedRing = store.read(KEY_RING_SECRET);
    ring = storedRing === null ? new KeyRing() : KeyRing.fromJSON(JSON.parse(storedRing.toString('utf8')));
  } catch (error) {
    return {
      ok: false,
      code: 'profile_corrupt',
      message: `the device profile in ${dir} is unreadable: ${unreadable(error)}`,
    };
  }
  let identity: DeviceIdentity | null;
  try {
    identity = loadIdentity(store);
  } catch {
    // e.g. keys kept by the Electron shell's safeStorage store, read here as plain files
    identity = null;
  }
  if (identity === null || identity.deviceId !== info.deviceId) {
    return {
      ok: false,
      code: 'profile_corrupt',
      message: `the device profile in ${dir} has no identity keys matching device ${info.deviceId}`,
    };
  }
  return { ok: true, value: { dir, store, identity, info, ring } };
}

/** Loads the profile in `dir`, or starts a new one (fresh identity, status "new") when there is none. */
export function openOrCreateProfile(
  dir: string,
  init: { name: string; backendUrls: string[]; backendPins?: string[] },
  store: SecretStore = fileSecretStore(dir),
): Result<Profile, ProfileError['code']> {
  const loaded = loadProfile(dir, store);
  if (loaded.ok || loaded.code === 'profile_corrupt') return loaded;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const identity = loadOrCreateIdentity(store);
  const info: ProfileInfo = {
    format: 1,
    deviceId: identity.deviceId,
    name: init.name,
    backendUrls: init.backendUrls,
    backendPins: init.backendPins ?? [],
    accountId: null,
    status: 'new',
    joinRequestId: null,
    inviter: null,
    trusted: [],
    hosting: null,
    backendHost: null,
    moveSettings: { ...DEFAULT_MOVE_SETTINGS },
  };
  const profile: Profile = { dir, store, identity, info, ring: new KeyRing() };
  saveProfile(profile);
  return { ok: true, value: profile };
}

/**
 * Forgets a profile that never got further than "new" (an account or a join that failed before the
 * backend knew it): its profile.json and keys, so the folder holds no half-made device. Anything else
 * in the folder stays.
 */
export function discardNewProfile(profile: Profile): void {
  if (profile.info.status !== 'new') return;
  rmSync(join(profile.dir, PROFILE_FILE), { force: true });
  for (const name of [SIGNING_KEY_NAME, AGREEMENT_KEY_NAME, KEY_RING_SECRET, INVITES_SECRET]) profile.store.remove(name);
}

/** Makes `urls` the profile's backend addresses (saved when they differ); true when they changed. */
export function setBackendUrls(profile: Profile, urls: readonly string[]): boolean {
  if (profile.info.backendUrls.join(',') === urls.join(',')) return false;
  profile.info = { ...profile.info, backendUrls: [...urls] };
  saveProfile(profile);
  return true;
}

/** Makes `pins` the backend keys the profile accepts (saved when they differ); true when they changed. */
export function setBackendPins(profile: Profile, pins: readonly string[]): boolean {
  if (profile.info.backendPins.join(',') === pins.join(',')) return false;
  profile.info = { ...profile.info, backendPins: [...pins] };
  saveProfile(profile);
  return true;
}

/** Makes `settings` the profile's move settings (saved). */
export function setMoveSettings(profile: Profile, settings: MoveSettings): MoveSettings {
  profile.info = { ...profile.info, moveSettings: { ...settings } };
  saveProfile(profile);
  return profile.info.moveSettings;
}

/** Starts the profile over as a new device (fresh identity, no keys): for a device whose join was refused. */
export function restartAsNewDevice(profile: Profile): Profile {
  const identity = replaceIdentity(profile.store);
  const fresh: Profile = {
    dir: profile.dir,
    store: profile.store,
    identity,
    ring: new KeyRing(),
    info: { ...profile.info, deviceId: identity.deviceId, accountId: null, status: 'new', joinRequestId: null, inviter: null, trusted: [] },
  };
  saveProfile(fresh);
  return fresh;
}

/** The devices this one trusts on its own: itself and its profile's anchors. */
export function trustAnchors(profile: Profile): TrustedDevice[] {
  const { deviceId, keys } = profile.identity;
  return [{ deviceId, ...keys }, ...profile.info.trusted.filter((t) => t.deviceId !== deviceId)];
}

/** Writes profile.json and the key ring (each atomically, 0600). */
export function saveProfile(profile: Profile): void {
  writeFileAtomic600(join(profile.dir, PROFILE_FILE), Buffer.from(`${JSON.stringify(ProfileInfo.parse(profile.info), null, 2)}\n`));
  profile.store.write(KEY_RING_SECRET, Buffer.from(JSON.stringify(profile.ring)));
}

/** The invites this device made that are still outstanding. */
export function loadInvites(profile: Profile): PendingInvite[] {
  const raw = profile.store.read(INVITES_SECRET);
  if (raw === null) return [];
  try {
    return z.array(PendingInvite).parse(JSON.parse(raw.toString('utf8')));
  } catch {
    return [];
  }
}

/** Replaces the stored invites (secrets) of this device. */
export function saveInvites(profile: Profile, invites: PendingInvite[]): void {
  profile.store.write(INVITES_SECRET, Buffer.from(JSON.stringify(invites)));
}
