/**
 * A small fetch-compatible transport over node:http(s) with keep-alive agents: the client's default.
 * It covers what the backend client sends (string URL, method, headers, byte body, abort signal) at a
 * fraction of the cost of the global fetch; event streams come back as streaming bodies.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { bodySize, isChunks } from './request-signer.ts';

const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };
// An event stream holds its socket for as long as it is open: it gets one of its own, outside the
// request pool, so open streams never leave calls queued behind them.
const streamAgents = { http: new HttpAgent({ keepAlive: false }), https: new HttpsAgent({ keepAlive: false }) };

/** The agents a client's requests go through: `request` (kept alive, pooled) for calls and blobs, `stream` for event streams. */
export interface AgentPair {
  request(url: URL): HttpAgent;
  stream(url: URL): HttpAgent;
}

/** Node's own agents: https checked against the system's trust store (a client with pins uses backend-trust.ts's). */
export const DEFAULT_AGENTS: AgentPair = {
  request: (url) => (url.protocol === 'https:' ? agents.https : agents.http),
  stream: (url) => (url.protocol === 'https:' ? streamAgents.https : streamAgents.http),
};

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** A buffered answer: its status and body bytes. */
export interface Exchange {
  status: number;
  body: Buffer;
}

export interface ExchangeInit {
  method: string;
  headers: Record<string, string>;
  /** The body, whole or as chunks sent in order (never joined on the node:http path). */
  body?: Uint8Array | readonly Uint8Array[];
  /** The whole exchange is given up (rejected) after this long. */
  timeoutMs: number;
}

/** Sends a request and buffers the answer; rejects when the server is not reached or the time runs out. */
export type Exchanger = (url: string, init: ExchangeInit) => Promise<Exchange>;

/**
 * The client's lean path for buffered calls: node:http(s) with `pool`'s keep-alive agents and no
 * WHATWG Request/Response/Headers/AbortSignal objects, which cost more CPU than the request itself
 * (an Exchanger, over Node's own agents unless given others).
 */
export function nodeHttpExchange(input: string, init: ExchangeInit, pool: AgentPair = DEFAULT_AGENTS): Promise<Exchange> {
  const url = new URL(input);
  const secure = url.protocol === 'https:';
  const headers: Record<string, string> = { ...init.headers };
  const chunks = init.body === undefined ? [] : isChunks(init.body) ? init.body : [init.body];
  if (init.body !== undefined) headers['content-length'] = String(bodySize(init.body));
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: init.method,
        headers,
        agent: pool.request(url),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }));
        res.on('error', () => undefined);
        res.on('close', () => {
          clearTimeout(timer);
          if (!res.complete) reject(new TypeError('fetch failed: the answer was cut off'));
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${init.timeoutMs} ms`)), init.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(new TypeError(`fetch failed: ${error.message}`, { cause: error }));
    });
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** An Exchanger over any fetch (an injected transport in tests, or the global one); a chunked body is joined for it. */
export function fetchExchanger(doFetch: typeof fetch): Exchanger {
  return async (url, init) => {
    const body = init.body === undefined ? undefined : isChunks(init.body) ? Buffer.concat(init.body) : init.body;
    const response = await doFetch(url, { method: init.method, headers: init.headers, body, signal: AbortSignal.timeout(init.timeoutMs) });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
  };
}

/**
 * Sends one request over `agents` (default Node's own); resolves to a WHATWG Response (buffered, or
 * streaming for text/event-stream). A request that accepts `text/event-stream` goes on a socket of
 * its own, never one of the pooled ones.
 */
export function nodeHttpFetch(
  input: string | URL | Request,
  init: RequestInit = {},
  agents: AgentPair = DEFAULT_AGENTS,
): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const secure = url.protocol === 'https:';
  const body = init.body as Uint8Array | string | undefined | null;
  const headers = new Headers(init.headers);
  if (body != null) headers.set('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
  const streaming = (headers.get('accept') ?? '').includes('text/event-stream');
  return new Promise((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(signal.reason);
    const req = (secure ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers),
        agent: streaming ? agents.stream(url) : agents.request(url),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const responseHeaders = headersOf(res);
        if ((responseHeaders.get('content-type') ?? '').startsWith('text/event-stream')) {
          signal?.addEventListener('abort', () => res.destroy(), { once: true });
          resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status, headers: responseHeaders }));
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: responseHeaders })),
        );
        res.on('error', reject);
      },
    );
    const abort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    req.on('error', (error) => reject(new TypeError(`fetch failed: ${error.message}`, { cause: error })));
    req.on('close', () => signal?.removeEventListener('abort', abort));
    req.end(body ?? undefined);
  });
}
