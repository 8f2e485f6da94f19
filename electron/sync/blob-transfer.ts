/**
 * Blob transfers of any size between a device and the backend: an upload streams a file whose
 * digest is already known (the sealed checkpoint, hashed as it was written), a download hands the
 * body to a sink as it arrives. Neither holds the body in memory. Both go over the backend's
 * addresses in turn (failover.ts) until one answers below 500; a download cut off mid-body is a
 * failure value (the sink has seen part of it, so it is never silently restarted).
 */
import { readFile } from 'node:fs/promises';
import { routePath, routes, type RouteResponse } from '../../shared/api/routes.ts';
import type { AddressRing } from './address-ring.ts';
import { admittedAttempt, keyFailure, type BackendTrust, type TrustRefusal } from './backend-trust.ts';
import type { CallFailure, CallResult } from './call-result.ts';
import { backoffPause, tryInTurn } from './failover.ts';
import type { Exchange } from './http-transport.ts';
import type { ReachabilityTracker } from './reachability.ts';
import { declaredSignatureHeaders, signatureHeaders, type RequestSigner } from './request-signer.ts';
import { nodeHttpDownload, nodeHttpUpload, pump, type ChunkSink, type Download, type TransferProgress } from './stream-transport.ts';

/** What a transfer needs of its client. */
export interface TransferContext {
  ring: AddressRing;
  reachability: ReachabilityTracker;
  /** The keys accepted over TLS, and the agents that check them. */
  trust: BackendTrust;
  signer: RequestSigner;
  clock: () => number;
  /** Rounds over every address. */
  attempts: number;
  /** The longest a transfer may go without a byte moving. */
  idleTimeoutMs: number;
  /** An injected fetch (tests): bodies go through it whole. */
  fetch?: typeof fetch;
  /** Reads a non-2xx answer into a failure value. */
  failureOf(answer: Exchange): CallFailure;
}

/** A file to upload: where it is, its size and the SHA-256 of its bytes (its content address). */
export interface BlobFile {
  path: string;
  size: number;
  sha256: string;
}

function unreachable(tried: string[], lastError: string, refused: TrustRefusal | null): CallFailure {
  if (refused) return keyFailure(refused);
  const where = tried.length === 1 ? `at ${tried[0]}` : `at every address (${tried.join(', ')})`;
  return { ok: false, status: 0, code: 'unreachable', message: `the backend ${where} is unreachable: ${lastError}` };
}

/** The failover plan of a transfer: every address, `attempts` rounds. */
function plan(ctx: TransferContext) {
  return { ring: ctx.ring, reachability: ctx.reachability, rounds: ctx.attempts, pause: backoffPause };
}

/**
 * Uploads `file` as the blob of its digest, streamed from disk (re-read from its start on each
 * attempt), reporting bytes sent; the backend checks the digest as it receives it.
 */
export async function putBlobFile(
  ctx: TransferContext,
  file: BlobFile,
  onProgress?: TransferProgress,
): Promise<CallResult<RouteResponse<'putBlob'>>> {
  const path = routePath(routes.putBlob.path, { digest: file.sha256 });
  const admitted = admittedAttempt(ctx.trust, ctx.idleTimeoutMs, (url) => {
    const headers = {
      ...declaredSignatureHeaders(ctx.signer, 'PUT', path, { size: file.size, sha256: file.sha256 }, ctx.clock()),
      'content-type': 'application/octet-stream',
    };
    if (ctx.fetch) return fetchUpload(ctx.fetch, `${url}${path}`, headers, file, ctx.idleTimeoutMs);
    const init = { method: 'PUT' as const, headers, file, idleTimeoutMs: ctx.idleTimeoutMs, onProgress, agents: ctx.trust.agents };
    return nodeHttpUpload(`${url}${path}`, init);
  });
  const outcome = await tryInTurn(plan(ctx), admitted.attempt);
  if (outcome.kind === 'unavailable')
    return outcome.last ? ctx.failureOf(outcome.last) : unreachable(outcome.tried, outcome.lastError, admitted.refused());
  const answer = outcome.answer;
  if (answer.status < 200 || answer.status >= 300) return ctx.failureOf(answer);
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    json = undefined;
  }
  const parsed = routes.putBlob.response.safeParse(json);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, status: answer.status, code: 'bad_response', message: 'unexpected answer to putBlob' };
}

/**
 * Downloads the blob of `digest` into `sink` as it arrives, reporting bytes received (and the
 * length the backend announced); resolves with the size received. A sink's failure is rethrown.
 */
export async function getBlobTo(
  ctx: TransferContext,
  digest: string,
  sink: ChunkSink,
  onProgress?: (doneBytes: number, totalBytes: number | null) => void,
): Promise<CallResult<{ size: number }>> {
  const path = routePath(routes.getBlob.path, { digest });
  const admitted = admittedAttempt(ctx.trust, ctx.idleTimeoutMs, (url) => {
    const headers = signatureHeaders(ctx.signer, 'GET', path, undefined, ctx.clock());
    if (ctx.fetch) return fetchDownload(ctx.fetch, `${url}${path}`, headers, ctx.idleTimeoutMs);
    return nodeHttpDownload(`${url}${path}`, { headers, idleTimeoutMs: ctx.idleTimeoutMs, agents: ctx.trust.agents });
  });
  const outcome = await tryInTurn(plan(ctx), admitted.attempt);
  if (outcome.kind === 'unavailable') {
    const last = outcome.last;
    if (last?.body) return ctx.failureOf({ status: last.status, body: last.body });
    return unreachable(outcome.tried, outcome.lastError, admitted.refused());
  }
  const answer = outcome.answer;
  if (answer.body !== undefined) return ctx.failureOf({ status: answer.status, body: answer.body });
  const total = answer.length;
  try {
    const size = await pump(answer, sink, onProgress && ((done) => onProgress(done, total)));
    return { ok: true, value: { size } };
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith('fetch failed')) {
      return { ok: false, status: 0, code: 'unreachable', message: `the download of ${digest} was cut off: ${error.message}` };
    }
    throw error;
  }
}

/** The upload through an injected fetch (tests): the file is read whole first. */
async function fetchUpload(
  doFetch: typeof fetch,
  url: string,
  headers: Record<string, string>,
  file: BlobFile,
  timeoutMs: number,
): Promise<Exchange> {
  const body = (await readFile(file.path)).subarray(0, file.size);
  const response = await doFetch(url, { method: 'PUT', headers, body, signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

/** The download through an injected fetch (tests): the answer's body is read whole, then handed on as one chunk. */
async function fetchDownload(doFetch: typeof fetch, url: string, headers: Record<string, string>, timeoutMs: number): Promise<Download> {
  const response = await doFetch(url, { method: 'GET', headers, signal: AbortSignal.timeout(timeoutMs) });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status < 200 || response.status >= 300) return { status: response.status, body };
  return { status: response.status, length: body.length, read: async (each) => void (await each(body)), complete: () => true };
}
