import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { loadOrCreateIdentity } from './device-identity.ts';
import { generateAdk } from './key-ring.ts';
import { unwrapAdk, wrapAdk, type WrapBinding } from './key-wrap.ts';
import { memorySecretStore } from './secret-store.ts';

const ACCOUNT = 'account-aaaaaaaaaaaa';
const inviter = loadOrCreateIdentity(memorySecretStore());
const newcomer = loadOrCreateIdentity(memorySecretStore());
const stranger = loadOrCreateIdentity(memorySecretStore());
const adk = generateAdk();
const binding: WrapBinding = { accountId: ACCOUNT, keyVersion: 3, recipientDeviceId: newcomer.deviceId, wrapperDeviceId: inviter.deviceId };
const wrapped = wrapAdk(inviter, { deviceId: newcomer.deviceId, agreementPublicKey: newcomer.keys.agreementPublicKey }, ACCOUNT, 3, adk);

describe('ADK wrapping', () => {
  it('unwraps for the recipient when signed by the trusted wrapper', () => {
    const result = unwrapAdk(newcomer, wrapped, binding, inviter.keys.signingPublicKey);
    expect(result.ok && result.value.equals(adk)).toBe(true);
    expect(wrapped.length).toBeLessThan(4096);
  });

  it('rejects a wrap signed by a device the recipient does not trust', () => {
    const forged = wrapAdk(
      stranger,
      { deviceId: newcomer.deviceId, agreementPublicKey: newcomer.keys.agreementPublicKey },
      ACCOUNT,
      3,
      generateAdk(),
    );
    expect(unwrapAdk(newcomer, forged, binding, inviter.keys.signingPublicKey)).toMatchObject({ ok: false, code: 'wrap_rejected' });
    expect(unwrapAdk(newcomer, wrapped, binding, stranger.keys.signingPublicKey)).toMatchObject({ ok: false, code: 'wrap_rejected' });
  });

  it('rejects a wrap presented for another version, account or wrapper', () => {
    for (const other of [
      { ...binding, keyVersion: 4 },
      { ...binding, accountId: 'account-otherotherot' },
      { ...binding, wrapperDeviceId: stranger.deviceId },
    ]) {
      expect(unwrapAdk(newcomer, wrapped, other, inviter.keys.signingPublicKey).ok).toBe(false);
    }
  });

  it('cannot be opened by another device, even one holding the wrap', () => {
    expect(unwrapAdk(stranger, wrapped, { ...binding, recipientDeviceId: stranger.deviceId }, inviter.keys.signingPublicKey).ok).toBe(
      false,
    );
  });

  it('rejects every single-byte change of the wrap', () => {
    const bytes = Buffer.from(wrapped, 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      const copy = Buffer.from(bytes);
      copy[i] = copy[i]! ^ 0x01;
      expect(unwrapAdk(newcomer, copy.toString('base64url'), binding, inviter.keys.signingPublicKey).ok, `byte ${i}`).toBe(false);
    }
    expect(unwrapAdk(newcomer, 'not*base64', binding, inviter.keys.signingPublicKey).ok).toBe(false);
    expect(unwrapAdk(newcomer, wrapped.slice(0, -4), binding, inviter.keys.signingPublicKey).ok).toBe(false);
  });
});
