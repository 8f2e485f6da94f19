import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { AGREEMENT_KEY_NAME, loadIdentity, loadOrCreateIdentity, SIGNING_KEY_NAME } from './device-identity.ts';
import { verifySignature } from './raw-keys.ts';
import { fileSecretStore } from './secret-store.ts';

const tempDir = tempFolders('baton-identity-');

describe('device identity', () => {
  it('is made on first run, kept in 0600 files and the same on the next run', () => {
    const dir = tempDir();
    expect(loadIdentity(fileSecretStore(dir))).toBeNull();
    const first = loadOrCreateIdentity(fileSecretStore(dir));
    for (const name of [SIGNING_KEY_NAME, AGREEMENT_KEY_NAME]) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    const again = loadOrCreateIdentity(fileSecretStore(dir));
    expect(again.deviceId).toBe(first.deviceId);
    expect(again.keys).toEqual(first.keys);
    expect(loadIdentity(fileSecretStore(dir))?.deviceId).toBe(first.deviceId);
  });

  it('exposes raw 32-byte base64url public keys and a url-safe device id', () => {
    const identity = loadOrCreateIdentity(fileSecretStore(tempDir()));
    expect(Buffer.from(identity.keys.signingPublicKey, 'base64url').length).toBe(32);
    expect(Buffer.from(identity.keys.agreementPublicKey, 'base64url').length).toBe(32);
    expect(identity.keys.signingPublicKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(identity.deviceId).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
  });

  it('signs so that its raw public key verifies, and nothing else does', () => {
    const identity = loadOrCreateIdentity(fileSecretStore(tempDir()));
    const other = loadOrCreateIdentity(fileSecretStore(tempDir()));
    const data = Buffer.from('BATON-REQUEST-V1\nGET\n/v1/me');
    const signature = identity.sign(data);
    expect(signature.length).toBe(64);
    expect(verifySignature(identity.keys.signingPublicKey, data, signature)).toBe(true);
    expect(verifySignature(other.keys.signingPublicKey, data, signature)).toBe(false);
    expect(verifySignature(identity.keys.signingPublicKey, Buffer.from('other'), signature)).toBe(false);
    expect(verifySignature('garbage', data, signature)).toBe(false);
  });
});
