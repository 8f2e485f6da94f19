/** Starts the sync backend: SQLite store and blob files in a data folder, served over node:http. */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { redactCredentials } from '../shared/url-credentials.ts';
import { SignatureVerifier } from './auth/signature.ts';
import { BlobFiles } from './blobs/blob-files.ts';
import { handleRequest } from './http/pipeline.ts';
import { PushHub } from './push/push-hub.ts';
import { randomId, type Deps } from './service/context.ts';
import { openSqliteStore } from './store/sqlite-store.ts';
import type { Store } from './store/store.ts';

export interface BackendOptions {
  dataDir: string;
  host?: string;
  port?: number;
  /** Injectable clock (milliseconds since the epoch). */
  clock?: () => number;
  /** Largest blob accepted (default 256 MiB). */
  maxBlobBytes?: number;
  /** Largest JSON body accepted (default 8 MiB). */
  maxJsonBytes?: number;
  /** Push-stream keep-alive interval (default 15 s). */
  streamHeartbeatMs?: number;
  /** Where one-line failure notes go (default stderr). */
  log?: (line: string) => void;
  /** Use this store instead of opening SQLite in dataDir. */
  store?: Store;
}

export interface RunningBackend {
  url: string;
  host: string;
  port: number;
  store: Store;
  push: PushHub;
  /** Closes push streams, the server and the store. */
  close(): Promise<void>;
}

/** Listens on host:port (port 0 picks a free one) and resolves once the backend is serving. */
export async function startBackend(options: BackendOptions): Promise<RunningBackend> {
  const clock = options.clock ?? Date.now;
  const store = options.store ?? openSqliteStore(options.dataDir, clock);
  const push = new PushHub();
  const deps: Deps = {
    store,
    clock,
    push,
    blobs: new BlobFiles(join(options.dataDir, 'blobs'), options.maxBlobBytes ?? 256 * 1024 * 1024),
    newId: randomId,
  };
  const sink = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // A failure note can quote a request's error; no credential in a URL reaches the log.
  const log = (line: string) => sink(redactCredentials(line));
  const app = {
    deps,
    verifier: new SignatureVerifier(),
    jsonLimit: options.maxJsonBytes ?? 8 * 1024 * 1024,
    streamHeartbeatMs: options.streamHeartbeatMs ?? 15_000,
    log,
  };
  const server: Server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => void handleRequest(app, req, res));
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  const pruner = setInterval(
    () => void store.prune(clock()).catch((error: Error) => log(`backend: prune failed: ${error.message}`)),
    60_000,
  );
  pruner.unref();
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    store,
    push,
    close() {
      closing ??= (async () => {
        clearInterval(pruner);
        push.closeAll();
        // Stop accepting, let requests in flight finish (their commits included), then cut the rest.
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 2000).unref();
        });
        await new Promise((resolve) => setImmediate(resolve));
        store.close();
      })();
      return closing;
    },
  };
}
