/**
 * What one device posts for another through the backend's sealed log of a session (a permission
 * answer, a Move here request): signed with the device's own key over its fields in a fixed order,
 * so the owner applies it only when an enrolled device of the account wrote exactly that.
 */
import type { Device } from '../../shared/api/devices.ts';
import { fromBase64url, toBase64url } from '../crypto/base64url.ts';
import { verifySignature } from '../crypto/raw-keys.ts';

/** A device's signing key. */
export interface PostSigner {
  sign(data: Uint8Array): Uint8Array;
}

/** The bytes signed for a post: its fields as one JSON array (the first names what it is). */
function fieldBytes(fields: readonly (string | number)[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(fields));
}

/** Signs `fields` with `signer`: the signature in base64url. */
export function signPost(signer: PostSigner, fields: readonly (string | number)[]): string {
  return toBase64url(signer.sign(fieldBytes(fields)));
}

/** Whether `signature` over `fields` is by `device`, and `device` is enrolled. */
export function verifyPost(device: Device | undefined, fields: readonly (string | number)[], signature: string): boolean {
  const bytes = fromBase64url(signature);
  return device?.status === 'enrolled' && bytes !== null && verifySignature(device.signingPublicKey, fieldBytes(fields), bytes);
}

/** The sentence of a post the backend refused for now (`rate_limited`: too many in its window), with when to try again. */
export function postLaterMessage(details: Record<string, unknown> | undefined, what: string): string {
  const ms = typeof details?.retryAfterMs === 'number' ? details.retryAfterMs : 60_000;
  return `Too many ${what} were sent in the last minute; try again in ${Math.max(1, Math.ceil(ms / 1000))} s.`;
}
