/**
 * The signed HTTP client devices use to talk to the backend. Calls are named after the route table
 * (shared/api/routes.ts): paths, methods and schemas come from there. Expected failures are values.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { routePath, routes, type RouteName, type RouteResponse, type RouteBody } from '../../shared/api/routes.ts';
import { ErrorBody } from '../../shared/api/common.ts';
import type { ApiErrorCode, Success } from '../../shared/errors.ts';
import { SIGNATURE_HEADERS } from '../../shared/request-signing.ts';
import { signatureHeaders, type RequestSigner } from './request-signer.ts';
import { fetchExchanger, nodeHttpExchange, nodeHttpFetch, type Exchange } from './http-transport.ts';

/** Codes a call can fail with: the API's, or the client's own. */
export type ClientErrorCode = ApiErrorCode | 'unreachable' | 'bad_response';

export interface CallFailure {
  ok: false;
  /** HTTP status, or 0 when the backend was not reached. */
  status: number;
  code: ClientErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export type CallResult<T> = Success<T> | CallFailure;

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
  baseUrl: string;
  signer: RequestSigner;
  /** The transport (default: keep-alive node:http, see http-transport.ts). */
  fetch?: typeof fetch;
  clock?: () => number;
  /** Attempts for a call whose request did not reach the backend (default 3). */
  attempts?: number;
  /** Per-attempt timeout in milliseconds (default 30 s). */
  timeoutMs?: number;
}

export interface BackendClient {
  readonly baseUrl: string;
  readonly deviceId: string;
  /** Calls a JSON route by name; never throws for network or API failures. */
  call<N extends JsonRouteName>(name: N, options?: CallOptions<N>): Promise<CallResult<RouteResponse<N>>>;
  /**
   * Uploads a content-addressed body, whole or as chunks written in order without joining them
   * (the backend refuses it unless sha256 of the bytes == digest).
   */
  putBlob(digest: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<CallResult<RouteResponse<'putBlob'>>>;
  /** Downloads a body of the account. */
  getBlob(digest: string): Promise<CallResult<Uint8Array>>;
  /** A signed request with no retry, for streams: resolves to the raw response. */
  signedFetch(
    method: 'GET' | 'POST' | 'PUT',
    pathAndQuery: string,
    init?: { body?: Uint8Array; signal?: AbortSignal; headers?: Record<string, string> },
  ): Promise<Response>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? (nodeHttpFetch as typeof fetch);
  const exchange = options.fetch ? fetchExchanger(options.fetch) : nodeHttpExchange;
  const clock = options.clock ?? Date.now;
  const attempts = options.attempts ?? 3;
  const timeoutMs = options.timeoutMs ?? 30_000;

  const signedFetch: BackendClient['signedFetch'] = (method, pathAndQuery, init = {}) => {
    const headers: Record<string, string> = {
      ...init.headers,
      ...signatureHeaders(options.signer, method, pathAndQuery, init.body, clock()),
    };
    if (init.body) headers['content-type'] ??= 'application/json';
    return doFetch(`${baseUrl}${pathAndQuery}`, {
      method,
      headers,
      body: init.body,
      signal: init.signal ?? AbortSignal.timeout(timeoutMs),
    });
  };

  /** Sends with retries while the backend is unreachable; the idempotency key makes a resend safe. Each attempt is signed afresh. */
  async function send(
    method: 'GET' | 'POST' | 'PUT',
    pathAndQuery: string,
    body: Uint8Array | readonly Uint8Array[] | undefined,
    headers: Record<string, string>,
  ): Promise<Exchange | CallFailure> {
    let lastError = 'no attempt made';
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(100 * 3 ** (attempt - 1));
      try {
        const signed: Record<string, string> = { ...headers, ...signatureHeaders(options.signer, method, pathAndQuery, body, clock()) };
        if (body) signed['content-type'] ??= 'application/json';
        return await exchange(`${baseUrl}${pathAndQuery}`, { method, headers: signed, body, timeoutMs });
      } catch (error) {
        lastError = (error as Error).message;
      }
    }
    return { ok: false, status: 0, code: 'unreachable', message: `the backend at ${baseUrl} is unreachable: ${lastError}` };
  }

  const idempotencyHeaders = (method: string, key: string | undefined): Record<string, string> =>
    method === 'GET' ? {} : { [SIGNATURE_HEADERS.idempotencyKey]: key ?? randomUUID() };

  return {
    baseUrl,
    deviceId: options.signer.deviceId,
    async call(name, callOptions = {}) {
      const spec = routes[name];
      const pathAndQuery = routePath(spec.path, callOptions.params) + queryString(callOptions.query as Record<string, unknown> | undefined);
      const body = spec.method === 'GET' ? undefined : Buffer.from(JSON.stringify(callOptions.body ?? {}), 'utf8');
      const response = await send(spec.method, pathAndQuery, body, idempotencyHeaders(spec.method, callOptions.idempotencyKey));
      if (!('body' in response)) return response;
      if (!isOk(response)) return failureOf(response);
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
      if (!isOk(response)) return failureOf(response);
      const parsed = routes.putBlob.response.safeParse(parseOrUndefined(response.body));
      return parsed.success
        ? { ok: true, value: parsed.data }
        : { ok: false, status: response.status, code: 'bad_response', message: 'unexpected answer to putBlob' };
    },
    async getBlob(digest) {
      const response = await send('GET', routePath(routes.getBlob.path, { digest }), undefined, {});
      if (!('body' in response)) return response;
      if (!isOk(response)) return failureOf(response);
      return { ok: true, value: new Uint8Array(response.body.buffer, response.body.byteOffset, response.body.byteLength) };
    },
    signedFetch,
  };
}
