/** Strict base64url encoding for keys, wraps and sealed fields (no padding, url-safe alphabet). */
import { Buffer } from 'node:buffer';

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Encodes bytes as unpadded base64url. */
export function toBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** Decodes unpadded base64url; returns null for any character outside the alphabet or an impossible length. */
export function fromBase64url(text: string): Buffer | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  return Buffer.from(text, 'base64url');
}
