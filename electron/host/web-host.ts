/**
 * The headless host: serves the built renderer on 127.0.0.1 and carries the device API over a
 * WebSocket bridge at /api. Plain Node (no Electron). Every request passes `guardRequest` (Host,
 * Origin, token) and every call passes `dispatchDeviceCall` (method + input schema) before a handler runs.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { DeviceApiEvent, DeviceApiHandlers } from '../../shared/device-api.ts';
import { BridgeRequest, DEVICE_API_PATH, TOKEN_PARAM, type BridgeResponse } from '../../shared/device-bridge.ts';
import { dispatchDeviceCall } from '../runtime/device-api/dispatch.ts';
import { carriesToken, guardRequest, type GuardConfig } from './request-guard.ts';
import { securityHeaders, serveStatic } from './static-files.ts';
import { pageStylesheets, tokenPage } from './token-page.ts';
import { uiToken, uiUrl } from './ui-address.ts';

export interface WebHostOptions {
  /** 0 picks a free port. */
  port: number;
  host?: '127.0.0.1';
  /** The built renderer (index.html and its assets). */
  rendererDir: string;
  /** The handlers for the next call (they change when a device finishes its first run). */
  handlers(): DeviceApiHandlers;
  /** Registers a listener for device events; returns its unsubscribe. */
  subscribe(listener: (event: DeviceApiEvent, payload: unknown) => void): () => void;
  /** The token the API takes (kept in the profile by `baton device`: host/ui-address.ts); random when none. */
  token?: string;
}

export interface WebHost {
  /** The page URL including `?token=`. */
  url: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 1024 * 1024;

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const text = status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 404 ? 'Not Found' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length + 1}\r\n\r\n${reason}\n`,
  );
}

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

/** Answers one bridge message: parse, dispatch, reply with the same id. */
async function answer(socket: WebSocket, handlers: DeviceApiHandlers, raw: string): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    send(socket, { id: -1, ok: false, error: { code: 'invalid_message', message: 'Messages must be JSON.' } } satisfies BridgeResponse);
    return;
  }
  const request = BridgeRequest.safeParse(json);
  if (!request.success) {
    send(socket, {
      id: -1,
      ok: false,
      error: { code: 'invalid_message', message: 'Expected {id, method, input}.' },
    } satisfies BridgeResponse);
    return;
  }
  const outcome = await dispatchDeviceCall(handlers, request.data.method, request.data.input);
  send(socket, { id: request.data.id, ...outcome } satisfies BridgeResponse);
}

/** Starts the headless host on 127.0.0.1; resolves once it listens, with its URL, token and close(). */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? uiToken(null);
  // The page without its token wears the UI's stylesheet: read once, from the built page.
  const stylesheets = pageStylesheets(await readFile(join(options.rendererDir, 'index.html'), 'utf8').catch(() => ''));
  const config: GuardConfig = { port: -1, token };
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  const server = createServer((req, res) => {
    const verdict = guardRequest(req, config, false);
    const headers = securityHeaders();
    if (!verdict.ok) {
      res.writeHead(verdict.status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end(`${verdict.reason}\n`);
      return;
    }
    // The page itself only with its token: without, a page in words on how to get the link.
    const { pathname } = verdict.url;
    if ((pathname === '/' || pathname === '/index.html') && !carriesToken(verdict.url, config)) {
      const given = verdict.url.searchParams.has(TOKEN_PARAM);
      res.writeHead(401, { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : tokenPage(config.port, given, stylesheets));
      return;
    }
    void serveStatic(options.rendererDir, verdict.url.pathname, req.method ?? 'GET', res, headers).catch(() => {
      if (!res.headersSent) res.writeHead(500, headers);
      res.end();
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const verdict = guardRequest(req, config, true);
    if (!verdict.ok) return refuseUpgrade(socket, verdict.status, verdict.reason);
    if (verdict.url.pathname !== DEVICE_API_PATH) return refuseUpgrade(socket, 404, 'not_found');
    sockets.handleUpgrade(req, socket, head, (ws) => sockets.emit('connection', ws, req));
  });

  sockets.on('connection', (ws: WebSocket) => {
    ws.on('error', () => ws.terminate());
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(1003, 'text only');
      void answer(ws, options.handlers(), data.toString());
    });
  });

  const unsubscribe = options.subscribe((event, payload) => {
    const message = JSON.stringify({ event, payload });
    for (const client of sockets.clients) if (client.readyState === client.OPEN) client.send(message);
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The web host did not get a TCP port.');
  config.port = address.port;

  return {
    url: uiUrl(address.port, token),
    token,
    port: address.port,
    close: async () => {
      unsubscribe();
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((done) => sockets.close(() => done()));
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
