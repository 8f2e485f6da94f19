/**
 * The request-signing contract between devices and the backend. Each signed request carries
 * these headers; the Ed25519 signature covers `canonicalRequest(...)`. Signing and verification
 * live on each side (electron/sync, backend/auth); the bytes signed are defined here, once.
 */

export const SIGNATURE_HEADERS = {
  device: 'x-baton-device',
  timestamp: 'x-baton-timestamp',
  nonce: 'x-baton-nonce',
  signature: 'x-baton-signature',
  idempotencyKey: 'idempotency-key',
} as const;

/** Requests older or newer than this are refused (`clock_skew`). */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface SignedParts {
  method: string;
  /** Path and query exactly as sent, e.g. `/v1/handoffs?sessionId=x`. */
  pathAndQuery: string;
  /** Lower-case hex SHA-256 of the body bytes (of the empty string when there is none). */
  bodySha256: string;
  timestamp: number;
  nonce: string;
  deviceId: string;
}

/** The exact string a device signs and the backend verifies. */
export function canonicalRequest(p: SignedParts): string {
  return ['BATON-REQUEST-V1', p.method.toUpperCase(), p.pathAndQuery, p.bodySha256, String(p.timestamp), p.nonce, p.deviceId].join('\n');
}
