/**
 * The signed HTTP client devices use to talk to the backend. Calls are named after the route table
 * (shared/api/routes.ts): paths, methods and schemas come from there. Expected failures are values.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { routePath, routes, type RouteName, type RouteResponse, type RouteBody } from '../../shared/api/routes.ts';
import { ErrorBody } from '../../shared/api/common.ts';
import { SIGNATURE_HEADERS } from '../../shared/request-signing.ts';
import { signatureHeaders, type RequestSigner } from './request-signer.ts';
import { fetchExchanger, nodeHttpExchange, nodeHttpFetch, type Exchange, type Exchanger } from './http-transport.ts';
import { admittedAttempt, BackendTrust, keyFailure } from './backend-trust.ts';
import { AddressRing } from './address-ring.ts';
import { backoffPause, tryInTurn } from './failover.ts';
import { ReachabilityTracker } from './reachability.ts';
import { getBlobTo, putBlobFile, type BlobFile, type TransferContext } from './blob-transfer.ts';
import type { ChunkSink, TransferProgress } from './stream-transport.ts';
import type { ApiErrorCode } from '../../shared/errors.ts';
import type { CallFailure, CallResult } from './call-result.ts';

/** Routes called with JSON (everything but blobs and the push stream). */
export type JsonRouteName = Exclude<RouteName, 'putBlob' | 'getBlob' | 'stream'>;

type QueryInput<N extends RouteName> = (typeof routes)[N] extends { query: infer S extends z.ZodType } ? z.input<S> : never;

export interface CallOptions<N extends RouteName> {
  params?: Record<string, string>;
  query?: QueryInput<N>;
  body?: RouteBody<N>;
  /** Reused on every retry of this call; a random one is made for mutating calls when absent. */
  idempotencyKey?: string;
}

export interface BackendClientOptions {
  /** The backend's address, or several (instances of one backend) tried in order: see failover.ts. */
  baseUrl: string | readonly string[];
  signer: RequestSigner;
  /** The transport (default: keep-alive node:http, see http-transport.ts). */
  fetch?: typeof fetch;
  /** The backend keys accepted over TLS (backend-trust.ts; default: pinned none, the system's trust store decides). */
  trust?: BackendTrust;
  clock?: () => number;
  /** Rounds over every address for a call no address answered below 500 (default 3). */
  attempts?: number;
  /** Per-attempt timeout in milliseconds (default 30 s); for a streamed blob, the longest it may go without a byte moving. */
  timeoutMs?: number;
}

export interface BackendClient {
  /** The address requests go to first (the one that answered last). */
  readonly baseUrl: string;
  /** Every address, and which one is current; replace() points the client elsewhere. */
  readonly addresses: AddressRing;
  /** Whether the backend answers, from every call and the push stream. */
  readonly reachability: ReachabilityTracker;
  /** The backend keys it accepts, and the last one it refused. */
  readonly trust: BackendTrust;
  readonly deviceId: string;
  /** Calls a JSON route by name; never throws for network or API failures. */
  call<N extends JsonRouteName>(name: N, options?: CallOptions<N>): Promise<CallResult<RouteResponse<N>>>;
  /**
   * Uploads a content-addressed body, whole or as chunks written in order without joining them
   * (the backend refuses it unless sha256 of the bytes == digest).
   */
  putBlob(digest: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<CallResult<RouteResponse<'putBlob'>>>;
  /** Downloads a body of the account (small bodies: it is held whole). */
  getBlob(digest: string): Promise<CallResult<Uint8Array>>;
  /** Uploads a file as the blob of its digest, streamed from disk (blob-transfer.ts), reporting bytes sent. */
  putBlobFile(file: BlobFile, onProgress?: TransferProgress): Promise<CallResult<RouteResponse<'putBlob'>>>;
  /** Downloads a blob into `sink` as it arrives (blob-transfer.ts), reporting bytes received of the announced total. */
  getBlobTo(
    digest: string,
    sink: ChunkSink,
    onProgress?: (doneBytes: number, totalBytes: number | null) => void,
  ): Promise<CallResult<{ size: number }>>;
  /** A signed request with no retry, for streams: resolves to the raw response. `at`: the address (default the current one). */
  signedFetch(
    method: 'GET' | 'POST' | 'PUT',
    pathAndQuery: string,
    init?: { body?: Uint8Array; signal?: AbortSignal; headers?: Record<string, string>; at?: string },
  ): Promise<Response>;
}

/** Builds `?a=b` from defined query values. */
function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Reads an error response into a failure value. */
function failureOf(response: Exchange): CallFailure {
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(response.body.toString('utf8')));
    if (parsed.success) {
      const { code, message, details } = parsed.data.error;
      return { ok: false, status: response.status, code: code as ApiErrorCode, message, ...(details ? { details } : {}) };
    }
  } catch {
    // fall through: not a JSON error body
  }
  return {
    ok: false,
    status: response.status,
    code: response.status >= 500 ? 'internal' : 'bad_response',
    message: `HTTP ${response.status}`,
  };
}

const isOk = (response: Exchange) => response.status >= 200 && response.status < 300;

function parseOrUndefined(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Creates a client signing every request with `signer` (for account creation and joins, the new device's). */
export function createBackendClient(options: BackendClientOptions): BackendClient {
  const ring = new AddressRing(typeof options.baseUrl === 'string' ? [options.baseUrl] : options.baseUrl);
  const reachability = new ReachabilityTracker(options.clock);
  const clock = options.clock ?? Date.now;
  const trust = options.trust ?? new BackendTrust([], clock);
  const doFetch = options.fetch ?? ((input: string, init?: RequestInit) => nodeHttpFetch(input, init, trust.agents));
  const exchange: Exchanger = options.fetch ? fetchExchanger(options.fetch) : (url, init) => nodeHttpExchange(url, init, trust.agents);
  const attempts = options.attempts ?? 3;
  const timeoutMs = options.timeoutMs ?? 30_000;

  const signedFetch: BackendClient['signedFetch'] = async (method, pathAndQuery, init = {}) => {
    const at = init.at ?? ring.current;
    // Nothing is signed for an address before it presented an accepted key.
    await trust.admit(at, timeoutMs);
    const headers: Record<string, string> = {
      ...init.headers,
      ...signatureHeaders(options.signer, method, pathAndQuery, init.body, clock()),
    };
    if (init.body) headers['content-type'] ??= 'application/json';
    return doFetch(`${at}${pathAndQuery}`, {
      method,
      headers,
      body: init.body,
      signal: init.signal ?? AbortSignal.timeout(timeoutMs),
    });
  };

  /**
   * Sends to the addresses in turn (failover.ts) while none answers below 500; `headers` (the
   * idempotency key) stay the same on every resend, and each attempt is signed afresh.
   */
  async function send(
    method: 'GET' | 'POST' | 'PUT',
    pathAndQuery: string,
    body: Uint8Array | readonly Uint8Array[] | undefined,
    headers: Record<string, string>,
  ): Promise<Exchange | CallFailure> {
    const ended = reachability.sent();
    const admitted = admittedAttempt(trust, timeoutMs, (url) => {
      const signed: Record<string, string> = { ...headers, ...signatureHeaders(options.signer, method, pathAndQuery, body, clock()) };
      if (body) signed['content-type'] ??= 'application/json';
      return exchange(`${url}${pathAndQuery}`, { method, headers: signed, body, timeoutMs });
    });
    const outcome = await tryInTurn({ ring, reachability, rounds: attempts, pause: backoffPause }, admitted.attempt).finally(ended);
    if (outcome.kind === 'answered') return outcome.answer;
    if (outcome.last) return outcome.last;
    const refused = admitted.refused();
    if (refused) return keyFailure(refused);
    const where = outcome.tried.length === 1 ? `at ${outcome.tried[0]}` : `at every address (${outcome.tried.join(', ')})`;
    return { ok: false, status: 0, code: 'unreachable', message: `the backend ${where} is unreachable: ${outcome.lastError}` };
  }

  /** An error answer as a failure value; a refusal as revoked is noted (the device stops acting on it). */
  const refusalOf = (response: Exchange): CallFailure => {
    const failure = failureOf(response);
    if (failure.code === 'device_revoked') reachability.refusedAsRevoked();
    return failure;
  };

  const transfers: TransferContext = {
    ring,
    reachability,
    trust,
    signer: options.signer,
    clock,
    attempts,
    idleTimeoutMs: timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    failureOf: refusalOf,
  };

  const idempotencyHeaders = (method: string, key: string | undefined): Record<string, string> =>
    method === 'GET' ? {} : { [SIGNATURE_HEADERS.idempotencyKey]: key ?? randomUUID() };

  return {
    get baseUrl() {
      return ring.current;
    },
    addresses: ring,
    reachability,
    trust,
    deviceId: options.signer.deviceId,
    async call(name, callOptions = {}) {
      const spec = routes[name];
      const pathAndQuery = routePath(spec.path, callOptions.params) + queryString(callOptions.query as Record<string, unknown> | undefined);
      const body = spec.method === 'GET' ? undefined : Buffer.from(JSON.stringify(callOptions.body ?? {}), 'utf8');
      const response = await send(spec.method, pathAndQuery, body, idempotencyHeaders(spec.method, callOptions.idempotencyKey));
      if (!('body' in response)) return response;
      if (!isOk(response)) return refusalOf(response);
      let json: unknown;
      try {
        json = JSON.parse(response.body.toString('utf8'));
      } catch {
        return { ok: false, status: response.status, code: 'bad_response', message: 'the backend answered with invalid JSON' };
      }
      const parsed = spec.response.safeParse(json);
      if (!parsed.success)
        return {
          ok: false,
          status: response.status,
          code: 'bad_response',
          message: `unexpected answer to ${name}: ${parsed.error.message.slice(0, 300)}`,
        };
      return { ok: true, value: parsed.data as RouteResponse<typeof name> };
    },
    async putBlob(digest, bytes) {
      const path = routePath(routes.putBlob.path, { digest });
      const response = await send('PUT', path, bytes, { 'content-type': 'application/octet-stream' });
      if (!('body' in response)) return response;
      if (!isOk(response)) return refusalOf(response);
      const parsed = routes.putBlob.response.safeParse(parseOrUndefined(response.body));
      return parsed.success
        ? { ok: true, value: parsed.data }
        : { ok: false, status: response.status, code: 'bad_response', message: 'unexpected answer to putBlob' };
    },
    async getBlob(digest) {
      const response = await send('GET', routePath(routes.getBlob.path, { digest }), undefined, {});
      if (!('body' in response)) return response;
      if (!isOk(response)) return refusalOf(response);
      return { ok: true, value: new Uint8Array(response.body.buffer, response.body.byteOffset, response.body.byteLength) };
    },
    putBlobFile: (file, onProgress) => putBlobFile(transfers, file, onProgress),
    getBlobTo: (digest, sink, onProgress) => getBlobTo(transfers, digest, sink, onProgress),
    signedFetch,
  };
}
