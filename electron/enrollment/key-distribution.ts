/**
 * Moving ADK versions between devices through the backend, which only ever holds wraps:
 * wrapping the ring for a device, pulling new versions, rotating, revoking.
 */
import type { Device, WrappedKey } from '../../shared/api/devices.ts';
import type { Failure, Result } from '../../shared/errors.ts';
import { generateAdk } from '../crypto/key-ring.ts';
import { unwrapAdk, wrapAdk } from '../crypto/key-wrap.ts';
import type { EnrollmentBackend } from './enrollment-backend.ts';
import { verifiedDevices, type TrustedDevice } from './enrollment-statement.ts';
import { saveProfile, trustAnchors, type Profile } from './profile.ts';

/** The account binding of the self-wrap made at account creation, before the backend named the account. */
export const ACCOUNT_CREATION_BINDING = '';

/** The profile's account id when it is enrolled; a typed failure otherwise. */
export function enrolledAccount(profile: Profile): Result<string, 'not_enrolled'> {
  if (profile.info.status !== 'enrolled' || profile.info.accountId === null) {
    return {
      ok: false,
      code: 'not_enrolled',
      message: `the device profile in ${profile.dir} is not enrolled (status ${profile.info.status})`,
    };
  }
  return { ok: true, value: profile.info.accountId };
}

/** Every ADK version of the ring, wrapped to `recipient` and signed by this device. */
export function wrapRingFor(profile: Profile, accountId: string, recipient: Pick<Device, 'id' | 'agreementPublicKey'>): WrappedKey[] {
  return profile.ring.versions().map((keyVersion) => ({
    keyVersion,
    deviceId: recipient.id,
    wrappedBy: profile.identity.deviceId,
    wrapped: wrapAdk(
      profile.identity,
      { deviceId: recipient.id, agreementPublicKey: recipient.agreementPublicKey },
      accountId,
      keyVersion,
      profile.ring.get(keyVersion)!,
    ),
  }));
}

export interface UnwrapReport {
  added: number[];
  rejected: Array<{ keyVersion: number; wrappedBy: string; message: string }>;
}

/**
 * Adds to the ring every wrap for this device whose version it lacks, when the wrap verifies
 * against the signing key `trusted` gives for its wrapper. Saves nothing.
 */
export function unwrapInto(profile: Profile, accountId: string, wraps: WrappedKey[], trusted: ReadonlyMap<string, string>): UnwrapReport {
  const report: UnwrapReport = { added: [], rejected: [] };
  const me = profile.identity;
  for (const wrap of [...wraps].sort((a, b) => a.keyVersion - b.keyVersion)) {
    if (wrap.deviceId !== me.deviceId || profile.ring.has(wrap.keyVersion)) continue;
    const signingKey = trusted.get(wrap.wrappedBy);
    if (signingKey === undefined) {
      report.rejected.push({
        keyVersion: wrap.keyVersion,
        wrappedBy: wrap.wrappedBy,
        message: `wrapped by ${wrap.wrappedBy}, which this device does not trust`,
      });
      continue;
    }
    const bindings = wrap.wrappedBy === me.deviceId ? [accountId, ACCOUNT_CREATION_BINDING] : [accountId];
    let message = '';
    for (const account of bindings) {
      const opened = unwrapAdk(
        me,
        wrap.wrapped,
        { accountId: account, keyVersion: wrap.keyVersion, recipientDeviceId: me.deviceId, wrapperDeviceId: wrap.wrappedBy },
        signingKey,
      );
      if (opened.ok) {
        profile.ring.add(wrap.keyVersion, opened.value);
        report.added.push(wrap.keyVersion);
        message = '';
        break;
      }
      message = opened.message;
    }
    if (message !== '') report.rejected.push({ keyVersion: wrap.keyVersion, wrappedBy: wrap.wrappedBy, message });
  }
  return report;
}

/**
 * The enrolled devices this device trusts with their keys: its anchors and every device an
 * enrollment chain leads to from them (enrollment-statement.ts). The backend's list alone trusts no one.
 */
async function trustedDevices(
  profile: Profile,
  accountId: string,
  backend: EnrollmentBackend,
): Promise<Result<Map<string, TrustedDevice>>> {
  const devices = await backend.listDevices();
  if (!devices.ok) return devices;
  return { ok: true, value: verifiedDevices(devices.value, accountId, trustAnchors(profile)) };
}

/**
 * Pulls ADK versions this device lacks (e.g. after a rotation elsewhere), verifying each wrap's signer;
 * saves the ring. When the backend says a revoked device holds the current version (a revoke whose
 * rotation did not happen), rotates: the first device to do so wins, the others then pull its version.
 */
export async function refreshKeyRing(profile: Profile, backend: EnrollmentBackend, rotateWhenDue = true): Promise<Result<UnwrapReport>> {
  const account = enrolledAccount(profile);
  if (!account.ok) return account;
  const [keys, trusted] = await Promise.all([backend.getKeys(), trustedDevices(profile, account.value, backend)]);
  if (!keys.ok) return keys;
  if (!trusted.ok) return trusted;
  const signers = new Map([...trusted.value].map(([id, t]) => [id, t.signingPublicKey]));
  const report = unwrapInto(profile, account.value, keys.value.keys, signers);
  if (report.added.length > 0) saveProfile(profile);
  if (keys.value.rotationDue === true && rotateWhenDue) {
    const rotated = await rotateAdk(profile, backend);
    if (rotated.ok) return { ok: true, value: { ...report, added: [...report.added, rotated.value.keyVersion] } };
    // Another device rotated first: take its version.
    if (rotated.code === 'state_mismatch') return refreshKeyRing(profile, backend, false);
    return rotated;
  }
  return { ok: true, value: report };
}

/**
 * Makes a new ADK version, wraps it for every enrolled device this device can verify (itself
 * included; to the agreement key its enrollment chain names) and makes it the newest.
 */
export async function rotateAdk(profile: Profile, backend: EnrollmentBackend): Promise<Result<{ keyVersion: number }>> {
  const account = enrolledAccount(profile);
  if (!account.ok) return account;
  const [keys, devices] = await Promise.all([backend.getKeys(), trustedDevices(profile, account.value, backend)]);
  if (!keys.ok) return keys;
  if (!devices.ok) return devices;
  const keyVersion = Math.max(profile.ring.newest() ?? 0, keys.value.currentVersion) + 1;
  const adk = generateAdk();
  const wrappedKeys: WrappedKey[] = [...devices.value.values()].map((d) => ({
    keyVersion,
    deviceId: d.deviceId,
    wrappedBy: profile.identity.deviceId,
    wrapped: wrapAdk(profile.identity, d, account.value, keyVersion, adk),
  }));
  const rotated = await backend.rotateKeys(keyVersion, wrappedKeys);
  if (!rotated.ok) return rotated;
  profile.ring.add(keyVersion, adk);
  saveProfile(profile);
  return { ok: true, value: { keyVersion } };
}

/**
 * Revokes another device of the account, then rotates: the backend refuses its requests from now on,
 * and a new ADK version, wrapped for the remaining devices, is what everything new is sealed under —
 * the revoked device's ring opens none of it. A revoke whose rotation failed says so (code
 * `rotation_failed`); the devices finish the rotation when they next fetch the keys (refreshKeyRing).
 */
export async function revokeDevice(
  profile: Profile,
  backend: EnrollmentBackend,
  deviceId: string,
): Promise<Result<{ device: Device; keyVersion: number }>> {
  const account = enrolledAccount(profile);
  if (!account.ok) return account;
  if (deviceId === profile.identity.deviceId)
    return { ok: false, code: 'forbidden', message: 'a device cannot revoke itself here' } satisfies Failure;
  const revoked = await backend.revokeDevice(deviceId);
  if (!revoked.ok) return revoked;
  const rotated = await rotateAdk(profile, backend);
  if (!rotated.ok) {
    return {
      ok: false,
      code: 'rotation_failed',
      message: `${revoked.value.name} was revoked, but the new account key could not be made yet (${rotated.message}); your devices make it when they next reach the sync backend.`,
    };
  }
  return { ok: true, value: { device: revoked.value, keyVersion: rotated.value.keyVersion } };
}
