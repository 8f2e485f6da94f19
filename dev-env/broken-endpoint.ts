/**
 * Addresses that do not work, each in one way a backend address can fail, counting what reached
 * them: one that hangs up on every connection, one that accepts and never answers, one that
 * answers every request 503 as a load balancer with no healthy instance does, and one that answers
 * 500 as a broken instance would (the HTTP ones record each request's method, path and headers).
 */
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';

export type Breakage = 'hang-up' | 'silent' | 'http-503' | 'http-500';

export interface BrokenEndpoint {
  readonly url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Requests answered so far (http-503 and http-500 only). */
  readonly requests: readonly { method: string; path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** Starts an endpoint broken as `kind` on a free port of 127.0.0.1. */
export async function startBrokenEndpoint(kind: Breakage): Promise<BrokenEndpoint> {
  const sockets = new Set<Socket>();
  const requests: { method: string; path: string; headers: IncomingHttpHeaders }[] = [];
  let connections = 0;
  let server: Server;
  if (kind === 'http-503' || kind === 'http-500') {
    const http = createHttpServer((req, res) => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
      req.resume();
      req.on('end', () => {
        res.writeHead(kind === 'http-503' ? 503 : 500, { 'content-type': 'text/plain' });
        res.end(kind === 'http-503' ? 'no healthy upstream' : 'internal error');
      });
    });
    server = http;
  } else {
    server = createTcpServer((socket) => {
      if (kind === 'hang-up') socket.destroy();
      else socket.on('error', () => undefined);
    });
  }
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    get connections() {
      return connections;
    },
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
