/**
 * An HTTP relay on 127.0.0.1 in front of a backend that records every request it passes on: which
 * device sent it (the signed device header), its method and its path. Streams (the push stream)
 * pass through as they come. A test gives the devices its address to count their backend calls.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADERS } from '../shared/request-signing.ts';

export interface RecordedRequest {
  deviceId: string | null;
  method: string;
  /** The path without its query (`/v1/handoffs`). */
  path: string;
  at: number;
}

export interface HttpRecorder {
  /** `http://127.0.0.1:PORT`, the address devices are given. */
  readonly url: string;
  /** Every request passed on so far, in arrival order. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a recording relay to `target` (`http://HOST:PORT`) on a free port of 127.0.0.1. */
export async function startHttpRecorder(target: string): Promise<HttpRecorder> {
  const to = new URL(target);
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const device = req.headers[SIGNATURE_HEADERS.device];
    requests.push({
      deviceId: typeof device === 'string' ? device : null,
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0]!,
      at: Date.now(),
    });
    const upstream = request(
      { hostname: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
