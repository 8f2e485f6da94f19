/**
 * A scripted model server for running the real Claude Code and Codex CLIs offline. It speaks just
 * enough of two wire protocols, on 127.0.0.1 only (and, for a network namespace's relay, on a Unix
 * socket):
 *   - Anthropic Messages  `POST /v1/messages` (SSE or JSON), `POST /v1/messages/count_tokens`, and
 *                         `HEAD /api/hello` (Claude's probe);
 *   - OpenAI Responses    `POST /v1/responses` (SSE), what Codex uses with `wire_api = "responses"`;
 *   - OpenAI Chat Completions `POST /v1/chat/completions` (SSE or JSON), what GitHub Copilot CLI
 *                         (`COPILOT_PROVIDER_TYPE=openai`) and Qwen Code (`OPENAI_BASE_URL`) use.
 * Replies are deterministic (rules.ts). Every request is recorded, credentials redacted, so a test
 * can assert what a CLI sent — e.g. that a resumed session carried its earlier history (`userTexts`).
 *
 * Point the CLIs at it with their own settings (dev-env/agent-clis/ does): ANTHROPIC_BASE_URL=<url>
 * and a dummy ANTHROPIC_API_KEY; a `[model_providers.scripted]` entry in CODEX_HOME/config.toml.
 *
 * Standalone: npx tsx dev-env/scripted-model-server/server.ts [--port N] [--record FILE]
 */
import { appendFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import * as zlib from 'node:zlib';
import { anthropicReply } from './anthropic-messages.ts';
import { anthropicConversation, chatConversation, isObject, responsesConversation, str } from './conversation.ts';
import { chatReply } from './openai-chat.ts';
import { responsesReply } from './openai-responses.ts';
import { decide, describeReply } from './rules.ts';
import { jsonError, usageOf, type Streamer } from './stream.ts';

export interface ScriptedModelServerOptions {
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Also serve on this Unix socket (what a network namespace's relay forwards to). */
  socketPath?: string;
  /** Delay between the chunks of a "slow" reply (default 250 ms). */
  slowChunkMs?: number;
  /** Number of chunks in a "slow" reply (default 40, about 10 s). */
  slowChunks?: number;
  /** Also append every recorded request as one JSON line to this file. */
  recordFile?: string;
}

export type ModelApi = 'anthropic-messages' | 'anthropic-count-tokens' | 'openai-responses' | 'openai-chat' | 'other';

export interface RecordedRequest {
  seq: number;
  at: string;
  method: string;
  path: string;
  query: string;
  /** Request headers; credentials (authorization, x-api-key, cookies, tokens) are "[redacted]". */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it is not JSON (null when empty). */
  body: unknown;
  api: ModelApi;
  /** The newest real user text (what the rules matched on), for model calls. */
  lastUserText: string | null;
  /** Every real user text of the conversation the request carried, oldest first: the history that came along. */
  userTexts: string[];
  /** What was answered, e.g. "text", "tool Write", "http 400", "http 404" (an unknown route). */
  reply: string;
  /** True when the client went away before the reply was complete (an interrupted turn). */
  aborted: boolean;
}

export interface ScriptedModelServer {
  /** e.g. http://127.0.0.1:4100 (no trailing slash, no /v1). */
  url: string;
  port: number;
  socketPath: string | null;
  /** Every request received so far, in arrival order (a live array). */
  requests: RecordedRequest[];
  /** Stops listening and ends every open connection (slow replies included). */
  close(): Promise<void>;
}

const SECRET_HEADER = /authorization|api-key|cookie|token|secret/i;

function redact(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = SECRET_HEADER.test(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The request body, decompressed when the client compressed it (zstd needs Node ≥ 22.15). */
async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const encoding = str(req.headers['content-encoding']).toLowerCase();
  if (encoding === 'gzip') return zlib.gunzipSync(bytes).toString('utf8');
  if (encoding === 'deflate') return zlib.inflateSync(bytes).toString('utf8');
  if (encoding === 'br') return zlib.brotliDecompressSync(bytes).toString('utf8');
  if (encoding === 'zstd') {
    const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync;
    if (zstd === undefined) throw new Error('a zstd request body, and this Node has no zstd');
    return zstd(bytes).toString('utf8');
  }
  return bytes.toString('utf8');
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function listen(server: Server, address: { port: number } | { path: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if ('path' in address) server.listen(address.path, () => resolve());
    else server.listen(address.port, '127.0.0.1', () => resolve());
  });
}

/** Starts the server; resolves once it listens. */
export async function startScriptedModelServer(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let ids = 0;
  const nextId = (prefix: string): string => `${prefix}_scripted_${(++ids).toString().padStart(6, '0')}`;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    const record: RecordedRequest = {
      seq: requests.length + 1,
      at: new Date().toISOString(),
      method,
      path,
      query: url.search,
      headers: redact(req.headers),
      body: null,
      api: 'other',
      lastUserText: null,
      userTexts: [],
      reply: '',
      aborted: false,
    };
    requests.push(record);
    let finished = false;
    res.on('finish', () => (finished = true));
    res.on('close', () => {
      record.aborted = !finished;
      if (options.recordFile !== undefined) appendFileSync(options.recordFile, `${JSON.stringify(record)}\n`);
    });
    const body = parseJson(await readBody(req));
    record.body = body;
    const s: Streamer = {
      res,
      closed: () => res.destroyed || res.writableEnded,
      slowChunkMs: options.slowChunkMs ?? 250,
      slowChunks: options.slowChunks ?? 40,
      nextId,
    };
    const model = (api: ModelApi, conv: ReturnType<typeof anthropicConversation>): ReturnType<typeof decide> => {
      const reply = decide(conv);
      Object.assign(record, { api, lastUserText: conv.userTexts.at(-1) ?? null, userTexts: conv.userTexts, reply: describeReply(reply) });
      return reply;
    };
    if (method === 'POST' && path === '/v1/messages' && isObject(body)) {
      await anthropicReply(body, model('anthropic-messages', anthropicConversation(body)), s);
    } else if (method === 'POST' && path === '/v1/responses' && isObject(body)) {
      await responsesReply(body, model('openai-responses', responsesConversation(body)), s);
    } else if (method === 'POST' && path === '/v1/chat/completions' && isObject(body)) {
      await chatReply(body, model('openai-chat', chatConversation(body)), s);
    } else if (method === 'POST' && path === '/v1/messages/count_tokens' && isObject(body)) {
      Object.assign(record, { api: 'anthropic-count-tokens', reply: 'count' });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: usageOf(body) }));
    } else if (method === 'HEAD' || (method === 'GET' && path === '/api/hello')) {
      record.reply = 'http 200'; // Claude Code's connectivity probe
      res.writeHead(200).end();
    } else if (method === 'GET' && path === '/v1/models') {
      record.reply = 'models';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [], models: [] }));
    } else {
      record.reply = 'http 404';
      jsonError(res, 404, { error: { message: `scripted server: no route for ${method} ${path}` } });
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`scripted server error: ${(error as Error).message}`);
    });
  };
  const server = createServer(onRequest);
  const unixServer = options.socketPath !== undefined ? createServer(onRequest) : null;
  const servers = unixServer === null ? [server] : [server, unixServer];
  for (const one of servers) {
    one.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  }
  await listen(server, { port: options.port ?? 0 });
  if (unixServer !== null && options.socketPath !== undefined) {
    rmSync(options.socketPath, { force: true });
    await listen(unixServer, { path: options.socketPath });
  }
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    socketPath: options.socketPath ?? null,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((one) => new Promise<void>((resolve) => one.close(() => resolve()))));
    },
  };
}

// Standalone: npx tsx dev-env/scripted-model-server/server.ts [--port N] [--record FILE] [--slow-chunk-ms N] [--slow-chunks N]
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const value = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const number = (name: string): number | undefined => (value(name) === undefined ? undefined : Number(value(name)));
  const server = await startScriptedModelServer({
    port: number('--port'),
    recordFile: value('--record'),
    slowChunkMs: number('--slow-chunk-ms'),
    slowChunks: number('--slow-chunks'),
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port })}\n`);
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
