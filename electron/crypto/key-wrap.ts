/**
 * Wrapping an ADK version to one device's X25519 key, signed by the wrapping device:
 *
 *   format 0x01 (1) | ephemeral X25519 public (32) | nonce (12) | encrypted ADK (32) | tag (16) | Ed25519 signature (64)
 *
 * KEK = HKDF-SHA256(ECDH(ephemeral, recipient), salt = ephemeral ‖ recipient public key). The AAD binds
 * account, recipient device, key version and wrapping device; the signature covers the AAD and every
 * byte before it, so only a device whose signing key the recipient trusts can hand it a key.
 */
import { createCipheriv, createDecipheriv, generateKeyPairSync, hkdfSync, randomBytes } from 'node:crypto';
import type { Failure, Result } from '../../shared/errors.ts';
import { fromBase64url, toBase64url } from './base64url.ts';
import type { DeviceIdentity } from './device-identity.ts';
import { ADK_BYTES } from './key-ring.ts';
import { importPublicKey, rawPublicKey, verifySignature, x25519 } from './raw-keys.ts';

const WRAP_FORMAT = 0x01;
const SIGNED_BYTES = 1 + 32 + 12 + ADK_BYTES + 16;
const WRAP_BYTES = SIGNED_BYTES + 64;

/** What a wrap is bound to. */
export interface WrapBinding {
  accountId: string;
  keyVersion: number;
  recipientDeviceId: string;
  wrapperDeviceId: string;
}

/** The recipient's public side as listed by the backend. */
export interface WrapRecipient {
  deviceId: string;
  agreementPublicKey: string;
}

export type UnwrapResult = Result<Buffer, 'wrap_rejected'>;

function aad(binding: WrapBinding, recipientAgreementKey: string): Buffer {
  return Buffer.from(
    [
      'BATON-ADK-WRAP-V1',
      binding.accountId,
      binding.recipientDeviceId,
      recipientAgreementKey,
      String(binding.keyVersion),
      binding.wrapperDeviceId,
    ].join('\n'),
    'utf8',
  );
}

function kek(shared: Buffer, ephemeralPublic: Buffer, recipientPublic: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeralPublic, recipientPublic]), 'baton-adk-wrap-v1', 32));
}

/** Wraps `adk` for `recipient`, signed by `wrapper`; returns the base64url wrap for the backend. */
export function wrapAdk(wrapper: DeviceIdentity, recipient: WrapRecipient, accountId: string, keyVersion: number, adk: Uint8Array): string {
  if (adk.byteLength !== ADK_BYTES) throw new Error(`an ADK is ${ADK_BYTES} bytes`);
  const recipientKey = importPublicKey('X25519', recipient.agreementPublicKey);
  if (recipientKey === null) throw new Error(`device ${recipient.deviceId} has no usable agreement key`);
  const ephemeral = generateKeyPairSync('x25519');
  const shared = x25519(ephemeral.privateKey, recipientKey);
  if (shared === null) throw new Error(`device ${recipient.deviceId} has no usable agreement key`);
  const ephemeralPublic = Buffer.from(rawPublicKey(ephemeral.publicKey), 'base64url');
  const binding: WrapBinding = { accountId, keyVersion, recipientDeviceId: recipient.deviceId, wrapperDeviceId: wrapper.deviceId };
  const associated = aad(binding, recipient.agreementPublicKey);
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek(shared, ephemeralPublic, Buffer.from(recipient.agreementPublicKey, 'base64url')), nonce);
  cipher.setAAD(associated);
  const signed = Buffer.concat([
    Buffer.from([WRAP_FORMAT]),
    ephemeralPublic,
    nonce,
    cipher.update(adk),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  const signature = wrapper.sign(Buffer.concat([associated, signed]));
  return toBase64url(Buffer.concat([signed, signature]));
}

const rejected = (message: string): Failure<'wrap_rejected'> => ({ ok: false, code: 'wrap_rejected', message });

/**
 * Unwraps an ADK wrapped to `me`, only if the wrap is signed by `trustedSigningKey` (the raw
 * Ed25519 key of the device named as wrapper) and bound to exactly `binding`.
 */
export function unwrapAdk(me: DeviceIdentity, wrapped: string, binding: WrapBinding, trustedSigningKey: string): UnwrapResult {
  if (binding.recipientDeviceId !== me.deviceId) return rejected('the wrap is for another device');
  const bytes = fromBase64url(wrapped);
  if (bytes === null || bytes.length !== WRAP_BYTES || bytes[0] !== WRAP_FORMAT) return rejected('the wrapped key is malformed');
  const associated = aad(binding, me.keys.agreementPublicKey);
  const signed = bytes.subarray(0, SIGNED_BYTES);
  if (!verifySignature(trustedSigningKey, Buffer.concat([associated, signed]), bytes.subarray(SIGNED_BYTES))) {
    return rejected(`the wrap of key version ${binding.keyVersion} is not signed by the trusted device ${binding.wrapperDeviceId}`);
  }
  const ephemeralPublic = bytes.subarray(1, 33);
  const ephemeralKey = importPublicKey('X25519', toBase64url(ephemeralPublic));
  const shared = ephemeralKey === null ? null : me.agree(ephemeralKey);
  if (shared === null) return rejected('the wrap carries an unusable ephemeral key');
  try {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      kek(shared, ephemeralPublic, Buffer.from(me.keys.agreementPublicKey, 'base64url')),
      bytes.subarray(33, 45),
    );
    decipher.setAAD(associated);
    decipher.setAuthTag(bytes.subarray(45 + ADK_BYTES, SIGNED_BYTES));
    const key = Buffer.concat([decipher.update(bytes.subarray(45, 45 + ADK_BYTES)), decipher.final()]);
    return { ok: true, value: key };
  } catch {
    return rejected(`the wrap of key version ${binding.keyVersion} does not open with this device's key`);
  }
}
