/** The first device of an account: creates the account and ADK version 1. */
import type { Result } from '../../shared/errors.ts';
import { fileSecretStore, type SecretStore } from '../crypto/secret-store.ts';
import { generateAdk } from '../crypto/key-ring.ts';
import { wrapAdk } from '../crypto/key-wrap.ts';
import type { EnrollmentBackendFactory } from './enrollment-backend.ts';
import { ACCOUNT_CREATION_BINDING } from './key-distribution.ts';
import { discardNewProfile, loadProfile, openOrCreateProfile, saveProfile, type Profile } from './profile.ts';

export interface EnrollmentDeps {
  backend: EnrollmentBackendFactory;
  /** The secret store of a profile folder (default: 0600 files in it; Electron passes safeStorage). */
  secretStore?: (profileDir: string) => SecretStore;
  now?: () => number;
}

/**
 * Creates the account from the profile in `profileDir` (made if missing) on the backend at
 * `backendUrls` (tried in order), accepting the keys `backendPins` over TLS (none: the system's
 * trust store decides): this device is enrolled, holds ADK v1 and keeps the addresses and pins.
 * A profile made for it is forgotten again when the backend does not create the account.
 */
export async function createAccount(
  profileDir: string,
  backendUrls: readonly string[],
  deviceName: string,
  deps: EnrollmentDeps,
  backendPins: readonly string[] = [],
): Promise<Result<Profile>> {
  const existed = loadProfile(profileDir, (deps.secretStore ?? fileSecretStore)(profileDir)).ok;
  const opened = openOrCreateProfile(
    profileDir,
    { name: deviceName, backendUrls: [...backendUrls], backendPins: [...backendPins] },
    (deps.secretStore ?? fileSecretStore)(profileDir),
  );
  if (!opened.ok) return opened;
  const profile = opened.value;
  if (profile.info.status !== 'new') {
    return {
      ok: false,
      code: 'already_enrolled',
      message: `the device profile in ${profileDir} is already ${profile.info.status} (account ${profile.info.accountId ?? 'pending'})`,
    };
  }
  const identity = profile.identity;
  const adk = generateAdk();
  const created = await deps.backend(backendUrls, identity, backendPins).createAccount({
    deviceId: identity.deviceId,
    name: deviceName,
    keys: identity.keys,
    wrapped: wrapAdk(
      identity,
      { deviceId: identity.deviceId, agreementPublicKey: identity.keys.agreementPublicKey },
      ACCOUNT_CREATION_BINDING,
      1,
      adk,
    ),
  });
  if (!created.ok) {
    if (!existed) discardNewProfile(profile);
    return created;
  }
  profile.ring.add(1, adk);
  profile.info = {
    ...profile.info,
    name: deviceName,
    backendUrls: [...backendUrls],
    backendPins: [...backendPins],
    accountId: created.value.accountId,
    status: 'enrolled',
  };
  saveProfile(profile);
  return { ok: true, value: profile };
}
