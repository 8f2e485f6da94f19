/**
 * A device's identity: an Ed25519 signing key and an X25519 key-agreement key, made on first run
 * and kept in a SecretStore. Private keys never leave this module; callers get signing and
 * agreement operations and the raw public keys.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { SecretStore } from './secret-store.ts';
import { deviceIdFor, rawPublicKey, x25519 } from './raw-keys.ts';

export const SIGNING_KEY_NAME = 'identity-signing.key';
export const AGREEMENT_KEY_NAME = 'identity-agreement.key';

/** The public half, in the shape the backend's DeviceKeys schema expects. */
export interface DevicePublicKeys {
  signingPublicKey: string;
  agreementPublicKey: string;
}

/** A device identity. Structurally a `RequestSigner` ({ deviceId, sign }) for the sync client. */
export interface DeviceIdentity {
  readonly deviceId: string;
  readonly keys: DevicePublicKeys;
  /** Ed25519 signature (64 bytes) of `data`. */
  sign(data: Uint8Array): Uint8Array;
  /** X25519 shared secret with a peer's public key; null when the peer key is unusable. */
  agree(peerPublicKey: KeyObject): Buffer | null;
}

function loadPrivate(bytes: Buffer, type: 'ed25519' | 'x25519'): KeyObject {
  const key = createPrivateKey({ key: bytes, format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== type) throw new Error(`stored identity key is ${key.asymmetricKeyType}, expected ${type}`);
  return key;
}

function loadOrCreateKey(store: SecretStore, name: string, type: 'ed25519' | 'x25519', replace = false): KeyObject {
  const stored = replace ? null : store.read(name);
  if (stored !== null) return loadPrivate(stored, type);
  const { privateKey } = type === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('x25519');
  store.write(name, privateKey.export({ format: 'der', type: 'pkcs8' }));
  return privateKey;
}

/** Builds an identity from two private keys. */
export function identityFromKeys(signingKey: KeyObject, agreementKey: KeyObject): DeviceIdentity {
  const keys: DevicePublicKeys = {
    signingPublicKey: rawPublicKey(createPublicKey(signingKey)),
    agreementPublicKey: rawPublicKey(createPublicKey(agreementKey)),
  };
  return {
    deviceId: deviceIdFor(keys.signingPublicKey),
    keys,
    sign: (data) => sign(null, data, signingKey),
    agree: (peer) => x25519(agreementKey, peer),
  };
}

/** Loads the identity kept in `store`, creating and storing both keys on first run. */
export function loadOrCreateIdentity(store: SecretStore): DeviceIdentity {
  return identityFromKeys(loadOrCreateKey(store, SIGNING_KEY_NAME, 'ed25519'), loadOrCreateKey(store, AGREEMENT_KEY_NAME, 'x25519'));
}

/** Makes a new identity in `store`, replacing any kept there (a device id the backend refused for good). */
export function replaceIdentity(store: SecretStore): DeviceIdentity {
  return identityFromKeys(
    loadOrCreateKey(store, SIGNING_KEY_NAME, 'ed25519', true),
    loadOrCreateKey(store, AGREEMENT_KEY_NAME, 'x25519', true),
  );
}

/** Loads the identity kept in `store`; null when the device has none yet. */
export function loadIdentity(store: SecretStore): DeviceIdentity | null {
  const signing = store.read(SIGNING_KEY_NAME);
  const agreement = store.read(AGREEMENT_KEY_NAME);
  if (signing === null || agreement === null) return null;
  return identityFromKeys(loadPrivate(signing, 'ed25519'), loadPrivate(agreement, 'x25519'));
}
