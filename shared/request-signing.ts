/**
 * The request-signing contract between devices and the backend. Each signed request carries
 * these headers; the Ed25519 signature covers `canonicalRequest(...)`. Signing and verification
 * live on each side (electron/sync, backend/auth); the bytes signed are defined here, once.
 *
 * The body is declared in headers and signed: its size (`Content-Length`, absent or 0 for none)
 * and its SHA-256 (`x-baton-content-sha256`). So the backend checks the signature and the size
 * limit before it reads a byte of the body, then holds the body to what was declared while reading.
 */

export const SIGNATURE_HEADERS = {
  device: 'x-baton-device',
  timestamp: 'x-baton-timestamp',
  nonce: 'x-baton-nonce',
  signature: 'x-baton-signature',
  contentSha256: 'x-baton-content-sha256',
  idempotencyKey: 'idempotency-key',
} as const;

/** Requests older or newer than this are refused (`clock_skew`). */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface SignedParts {
  method: string;
  /** Path and query exactly as sent, e.g. `/v1/handoffs?sessionId=x`. */
  pathAndQuery: string;
  /** The body's size in bytes, as sent in Content-Length (0 when there is none). */
  bodySize: number;
  /** Lower-case hex SHA-256 of the body bytes (of the empty string when there is none). */
  bodySha256: string;
  timestamp: number;
  nonce: string;
  deviceId: string;
}

/** The exact string a device signs and the backend verifies. */
export function canonicalRequest(p: SignedParts): string {
  return [
    'BATON-REQUEST-V2',
    p.method.toUpperCase(),
    p.pathAndQuery,
    String(p.bodySize),
    p.bodySha256,
    String(p.timestamp),
    p.nonce,
    p.deviceId,
  ].join('\n');
}
