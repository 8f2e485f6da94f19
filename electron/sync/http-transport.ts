/**
 * A small fetch-compatible transport over node:http(s) with keep-alive agents: the client's default.
 * It covers what the backend client sends (string URL, method, headers, byte body, abort signal) at a
 * fraction of the cost of the global fetch; event streams come back as streaming bodies.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** Sends one request; resolves to a WHATWG Response (buffered, or streaming for text/event-stream). */
export function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const secure = url.protocol === 'https:';
  const body = init.body as Uint8Array | string | undefined | null;
  const headers = new Headers(init.headers);
  if (body != null) headers.set('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
  return new Promise((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(signal.reason);
    const req = (secure ? httpsRequest : httpRequest)(
      { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`, method: init.method ?? 'GET', headers: Object.fromEntries(headers), agent: secure ? agents.https : agents.http },
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
        res.on('end', () => resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: responseHeaders })));
        res.on('error', reject);
      },
    );
    const abort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    req.on('error', (error) => reject(new TypeError(`fetch failed: ${error.message}`)));
    req.on('close', () => signal?.removeEventListener('abort', abort));
    req.end(body ?? undefined);
  });
}
