/** Who signs a device's requests: any Ed25519 identity plugs in through `RequestSigner`. */
import { createHash, randomUUID, sign as edSign, type KeyObject } from 'node:crypto';
import { canonicalRequest, SIGNATURE_HEADERS } from '../../shared/request-signing.ts';

export interface RequestSigner {
  deviceId: string;
  /** An Ed25519 signature (64 bytes) of `data`. */
  sign(data: Uint8Array): Uint8Array;
}

/** A signer over a node:crypto Ed25519 private key. */
export function keyObjectSigner(deviceId: string, privateKey: KeyObject): RequestSigner {
  return { deviceId, sign: (data) => edSign(null, data, privateKey) };
}

/** Lower-case hex SHA-256 of `bytes`. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Lower-case hex SHA-256 of a body given whole or as chunks in order (the same digest either way). */
export function bodySha256Hex(body: Uint8Array | readonly Uint8Array[] | undefined): string {
  const hash = createHash('sha256');
  if (body === undefined) return hash.digest('hex');
  for (const chunk of isChunks(body) ? body : [body]) hash.update(chunk);
  return hash.digest('hex');
}

/** Whether a body is given as chunks. */
export function isChunks(body: Uint8Array | readonly Uint8Array[]): body is readonly Uint8Array[] {
  return Array.isArray(body);
}

/** The size in bytes of a body given whole or as chunks (0 when there is none). */
export function bodySize(body: Uint8Array | readonly Uint8Array[] | undefined): number {
  if (body === undefined) return 0;
  return isChunks(body) ? body.reduce((sum, chunk) => sum + chunk.byteLength, 0) : body.byteLength;
}

/** A body as its signed headers declare it: its size and lower-case hex SHA-256. */
export interface DeclaredBody {
  size: number;
  sha256: string;
}

/**
 * The signature headers for one request (a fresh nonce each time), declaring the body's digest; the
 * body may be chunks, hashed in order. The transport sends the body's size as Content-Length.
 */
export function signatureHeaders(
  signer: RequestSigner,
  method: string,
  pathAndQuery: string,
  body: Uint8Array | readonly Uint8Array[] | undefined,
  now: number,
): Record<string, string> {
  return declaredSignatureHeaders(signer, method, pathAndQuery, { size: bodySize(body), sha256: bodySha256Hex(body) }, now);
}

/**
 * The signature headers for a body known by its size and digest alone (a file streamed as it is
 * sent, whose digest was taken when it was written): nothing is read or hashed here.
 */
export function declaredSignatureHeaders(
  signer: RequestSigner,
  method: string,
  pathAndQuery: string,
  body: DeclaredBody,
  now: number,
): Record<string, string> {
  const nonce = randomUUID();
  const canonical = canonicalRequest({
    method,
    pathAndQuery,
    bodySize: body.size,
    bodySha256: body.sha256,
    timestamp: now,
    nonce,
    deviceId: signer.deviceId,
  });
  return {
    [SIGNATURE_HEADERS.device]: signer.deviceId,
    [SIGNATURE_HEADERS.timestamp]: String(now),
    [SIGNATURE_HEADERS.nonce]: nonce,
    [SIGNATURE_HEADERS.signature]: Buffer.from(signer.sign(Buffer.from(canonical, 'utf8'))).toString('base64url'),
    [SIGNATURE_HEADERS.contentSha256]: body.sha256,
  };
}
