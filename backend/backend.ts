/**
 * Starts the sync backend on its storage (storage.ts: a SQLite data folder, or a PostgreSQL database
 * shared with other instances, push linked between them), served over node:http — or node:https
 * given a TLS identity (tls/tls-identity.ts), which can be replaced while it serves — with bounded
 * handshake, header, idle and keep-alive times (limits.ts); request bodies are held to a minimum pace
 * instead of a total time (http/body-reader.ts), and a malformed or timed-out client is cut off.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { redactCredentials } from '../shared/url-credentials.ts';
import { SignatureVerifier } from './auth/signature.ts';
import { handleRequest, type HttpApp } from './http/pipeline.ts';
import { UploadSlots } from './http/upload-slots.ts';
import { PushHub } from './push/push-hub.ts';
import { randomId, type Deps } from './service/context.ts';
import { resolveLimits, type BackendLimits } from './limits.ts';
import { resolveRetention, type RetentionSettings } from './retention.ts';
import { Collector, type CollectionReport } from './service/collector.ts';
import type { Store } from './store/store.ts';
import { openStorage, type Storage } from './storage.ts';
import type { TlsIdentity } from './tls/tls-identity.ts';

export interface BackendOptions {
  /** The SQLite data folder (one instance)… */
  dataDir?: string;
  /** …or a PostgreSQL URL (several instances may share the database). */
  database?: string;
  host?: string;
  port?: number;
  /** Injectable clock (milliseconds since the epoch). */
  clock?: () => number;
  /** Limits against hostile clients (defaults in limits.ts). */
  limits?: Partial<BackendLimits>;
  /** Which checkpoint bodies are kept, and how collection runs (defaults in retention.ts). */
  retention?: Partial<RetentionSettings>;
  /** Push-stream keep-alive interval (default 15 s). */
  streamHeartbeatMs?: number;
  /** Where one-line failure notes go (default stderr). */
  log?: (line: string) => void;
  /** Use this storage instead of opening `dataDir` or `database` (which throw their one-line refusal). */
  storage?: Storage;
  /** Serve HTTPS with this certificate and key (default: plain HTTP). */
  tls?: TlsIdentity;
}

export interface RunningBackend {
  url: string;
  host: string;
  port: number;
  store: Store;
  push: PushHub;
  /** Runs a collection pass now (one also runs every `retention.intervalMs`). */
  collect(): Promise<CollectionReport>;
  /** The fingerprint of the key it serves with (null over plain HTTP). */
  readonly fingerprint: string | null;
  /**
   * Serves with `identity` from the next handshake on, on the same listener; kept-alive connections
   * and push streams are closed, so every device meets the new key at once (HTTPS only).
   */
  replaceTls(identity: TlsIdentity): void;
  /** Closes push streams, the server and the store. */
  close(): Promise<void>;
}

/** Listens on host:port (port 0 picks a free one) and resolves once the backend is serving. */
export async function startBackend(options: BackendOptions): Promise<RunningBackend> {
  const clock = options.clock ?? Date.now;
  const limits = resolveLimits(options.limits);
  const retention = resolveRetention(options.retention);
  const sink = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // A failure note can quote a request's error; no credential in a URL reaches the log.
  const log = (line: string) => sink(redactCredentials(line));
  const storage = options.storage ?? (await openOrThrow(options, clock, log));
  const { store } = storage;
  const push = new PushHub();
  const link = await storage.linkPush(push, log);
  const deps: Deps = {
    store,
    clock,
    push,
    blobs: storage.blobs,
    newId: randomId,
    limits,
    retention,
  };
  const app: HttpApp = {
    deps,
    verifier: new SignatureVerifier(),
    uploads: new UploadSlots(limits.maxUploadsPerDevice, limits.maxUploadsPerAccount),
    pace: { minBytesPerSecond: limits.minBodyBytesPerSecond, windowMs: limits.bodyRateWindowMs },
    streamHeartbeatMs: options.streamHeartbeatMs ?? 15_000,
    log,
  };
  const serverOptions = {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    // No total time for a request: bodies are held to a minimum pace instead (a slow, steady upload goes through).
    requestTimeout: 0,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, limits.headersTimeoutMs / 4)),
  };
  const serve = (req: Parameters<typeof handleRequest>[1], res: Parameters<typeof handleRequest>[2]) => void handleRequest(app, req, res);
  let tls = options.tls;
  const server: Server | TlsServer = tls
    ? createTlsServer({ ...serverOptions, cert: tls.cert, key: tls.key, handshakeTimeout: limits.headersTimeoutMs }, serve)
    : createServer(serverOptions, serve);
  server.setTimeout(limits.idleTimeoutMs);
  // A malformed request or one whose headers took too long: answer if possible, then cut the socket (never leave it half-open).
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable) socket.write(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    socket.destroy();
  });
  const pruner = setInterval(
    () =>
      void Promise.all([store.prune(clock()), store.expireJoinRequests(clock()), storage.blobs.prune(clock()), link.prune()]).catch(
        (error: Error) => log(`backend: prune failed: ${error.message}`),
      ),
    60_000,
  );
  pruner.unref();
  const collector = new Collector({ store, blobs: storage.blobs, clock, log, postWindowMs: limits.postWindowMs }, retention);
  collector.start();
  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // Nothing listens (the port is taken, the address is not this machine's): stop what started, and
    // close the storage only if it was opened here (a caller's storage is the caller's to try again with).
    clearInterval(pruner);
    await collector.stop();
    await link.stop();
    if (!options.storage) await storage.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    store,
    push,
    collect: () => collector.collect(),
    get fingerprint() {
      return tls?.fingerprint ?? null;
    },
    replaceTls(identity) {
      if (!tls || !('setSecureContext' in server)) throw new Error('the backend serves plain HTTP: start it with TLS to replace its key');
      server.setSecureContext({ cert: identity.cert, key: identity.key });
      tls = identity;
      server.closeIdleConnections();
      push.closeAll();
    },
    close() {
      closing ??= (async () => {
        clearInterval(pruner);
        await collector.stop();
        push.closeAll();
        await link.stop();
        // Stop accepting, let requests in flight finish (their commits included), then cut the rest.
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 2000).unref();
        });
        await new Promise((resolve) => setImmediate(resolve));
        await storage.close();
      })();
      return closing;
    },
  };
}

async function openOrThrow(options: BackendOptions, clock: () => number, log: (line: string) => void): Promise<Storage> {
  const choice =
    options.database !== undefined
      ? { database: options.database }
      : options.dataDir !== undefined
        ? { dataDir: options.dataDir }
        : undefined;
  if (!choice) throw new Error('the backend needs a data folder or a database');
  const opened = await openStorage(choice, { clock, log });
  if (!opened.ok) throw new Error(opened.message);
  return opened.value;
}
