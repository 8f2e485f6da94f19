/** Raw 32-byte Ed25519 / X25519 public keys (base64url, as the backend stores them) ↔ node:crypto KeyObjects. */
import { createHash, createPublicKey, diffieHellman, verify, type KeyObject } from 'node:crypto';
import { fromBase64url, toBase64url } from './base64url.ts';

export type OkpCurve = 'Ed25519' | 'X25519';

/** The raw public key of `key` as base64url (32 bytes for both curves). */
export function rawPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new Error('not an OKP key');
  return jwk.x;
}

/** Imports a raw 32-byte public key given as base64url; null when it is not a valid key of that curve. */
export function importPublicKey(curve: OkpCurve, raw: string): KeyObject | null {
  const bytes = fromBase64url(raw);
  if (bytes === null || bytes.length !== 32) return null;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: curve, x: toBase64url(bytes) }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** True only when `signature` is a valid Ed25519 signature of `data` by the raw key `signingPublicKey`. */
export function verifySignature(signingPublicKey: string, data: Uint8Array, signature: Uint8Array): boolean {
  const key = importPublicKey('Ed25519', signingPublicKey);
  if (key === null || signature.byteLength !== 64) return false;
  try {
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}

/** X25519 shared secret between a private key and a peer's public key; null when the peer key is unusable. */
export function x25519(privateKey: KeyObject, peerPublicKey: KeyObject): Buffer | null {
  try {
    const secret = diffieHellman({ privateKey, publicKey: peerPublicKey });
    // An all-zero secret means a low-order peer point: refuse it.
    return secret.every((b) => b === 0) ? null : secret;
  } catch {
    return null;
  }
}

/** A device id derived from its signing public key: stable, url-safe, 24 characters. */
export function deviceIdFor(signingPublicKey: string): string {
  return createHash('sha256').update('baton-device-id\n').update(signingPublicKey).digest('base64url').slice(0, 24);
}
