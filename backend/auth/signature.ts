/** Ed25519 verification of signed requests (node:crypto), with verified public keys cached; the declared body they sign. */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_CLOCK_SKEW_MS, SIGNATURE_HEADERS } from '../../shared/request-signing.ts';
import { fail, ok, type Failure, type Result } from '../../shared/errors.ts';

/** The body a request declares in its (signed) headers, before any of it is read. */
export interface DeclaredBody {
  /** Content-Length (0 when absent). */
  size: number;
  /** x-baton-content-sha256: lower-case hex SHA-256 of the body. */
  sha256: string;
}

export interface SignatureHeaders {
  deviceId: string;
  timestamp: number;
  nonce: string;
  signature: Buffer;
  body: DeclaredBody;
}

const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Reads and shape-checks the signature headers and the declared body; any missing or malformed one is
 * `unauthorized`, a body without a Content-Length (chunked) is `length_required`.
 */
export function readSignatureHeaders(headers: IncomingHttpHeaders): Result<SignatureHeaders, 'unauthorized' | 'length_required'> {
  const deviceId = header(headers, SIGNATURE_HEADERS.device);
  const timestamp = header(headers, SIGNATURE_HEADERS.timestamp);
  const nonce = header(headers, SIGNATURE_HEADERS.nonce);
  const signature = header(headers, SIGNATURE_HEADERS.signature);
  const sha256 = header(headers, SIGNATURE_HEADERS.contentSha256);
  if (!deviceId || !timestamp || !nonce || !signature || !sha256) return fail('unauthorized', 'the request is not signed');
  if (!/^\d{1,16}$/.test(timestamp) || !NONCE.test(nonce) || !B64URL.test(signature) || deviceId.length > 64 || !SHA256_HEX.test(sha256)) {
    return fail('unauthorized', 'the signature headers are malformed');
  }
  if (headers['transfer-encoding'] !== undefined) {
    return fail('length_required', 'a request body must be sent with its Content-Length, not chunked');
  }
  const size = headers['content-length'] === undefined ? 0 : Number(headers['content-length']);
  return ok({ deviceId, timestamp: Number(timestamp), nonce, signature: Buffer.from(signature, 'base64url'), body: { size, sha256 } });
}

/** Refuses a timestamp more than MAX_CLOCK_SKEW_MS away from `now`. */
export function checkClockSkew(timestamp: number, now: number): Failure<'clock_skew'> | undefined {
  if (Math.abs(now - timestamp) <= MAX_CLOCK_SKEW_MS) return undefined;
  return fail('clock_skew', 'the request time is more than five minutes away from the server clock', { serverTime: now });
}

/** Verifies Ed25519 signatures against raw 32-byte base64url public keys; parsed keys are cached. */
export class SignatureVerifier {
  private readonly keys = new Map<string, KeyObject | null>();

  /** Whether `signature` is a valid signature of `data` by `publicKey` (false for a malformed key). */
  verify(publicKey: string, data: string, signature: Buffer): boolean {
    const key = this.key(publicKey);
    if (!key || signature.length !== 64) return false;
    try {
      return verify(null, Buffer.from(data, 'utf8'), key, signature);
    } catch {
      return false;
    }
  }

  private key(publicKey: string): KeyObject | null {
    let key = this.keys.get(publicKey);
    if (key !== undefined) return key;
    key = null;
    if (Buffer.from(publicKey, 'base64url').length === 32) {
      try {
        key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey }, format: 'jwk' });
      } catch {
        key = null;
      }
    }
    if (this.keys.size > 10_000) this.keys.clear();
    this.keys.set(publicKey, key);
    return key;
  }
}
