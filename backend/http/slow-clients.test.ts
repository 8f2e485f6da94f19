/**
 * Slow clients are cut off: bounded header, idle and keep-alive times, a minimum pace for bodies (a
 * trickle is cut, a slow but steady upload of a few MiB goes through), a malformed request's socket
 * destroyed, and a cap on push streams per device. Raw sockets, small limits so it runs in seconds.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../backend.ts';
import { DEFAULT_LIMITS, type BackendLimits } from '../limits.ts';
import { createTestAccount, newTestDevice, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { rawConnect, signedHead } from '../../dev-env/raw-http.ts';
import { openPushStream } from '../../electron/sync/push-stream.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

const MiB = 1024 * 1024;
const limits: Partial<BackendLimits> = {
  headersTimeoutMs: 400,
  keepAliveTimeoutMs: 300,
  idleTimeoutMs: 1200,
  minBodyBytesPerSecond: 64 * 1024,
  bodyRateWindowMs: 250,
  maxBlobBytes: 8 * MiB,
  maxStreamsPerDevice: 2,
};
let storage: TestStorage;
let backend: RunningBackend;
let laptop: TestDevice;
const logged: string[] = [];

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-slow');
    backend = await startBackend({ ...storage.options, limits, log: (line) => logged.push(line) });
    laptop = newTestDevice(backend.url, 'laptop');
    await createTestAccount(laptop);
  });

  afterAll(async () => {
    await backend.close();
    storage.cleanup();
  });

  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  describe('time limits', () => {
    it('has defaults that bound headers, idle sockets and body pace, with no total request time', () => {
      expect(DEFAULT_LIMITS).toMatchObject({ headersTimeoutMs: 10_000, idleTimeoutMs: 60_000, minBodyBytesPerSecond: 4096 });
    });

    it('cuts a client sending its headers a byte at a time once the header time is up', async () => {
      const conn = await rawConnect(backend.url);
      const head = Buffer.from(signedHead(laptop.signer, { method: 'GET', path: '/v1/me', size: 0, sha256: sha(Buffer.alloc(0)) }));
      void conn.trickle(head, 1, 20);
      const closedAfter = await conn.closed;
      expect(closedAfter).toBeGreaterThanOrEqual(limits.headersTimeoutMs!);
      expect(closedAfter).toBeLessThan(limits.headersTimeoutMs! + 1000);
      expect(conn.received()).toMatch(/^HTTP\/1\.1 408/);
    });

    it('closes a connection that sends nothing, and a kept-alive one left idle', async () => {
      const silent = await rawConnect(backend.url);
      const silentFor = await silent.closed;
      // A connection that never starts a request is held to the header time too.
      expect(silentFor).toBeGreaterThanOrEqual(limits.headersTimeoutMs! - 50);
      expect(silentFor).toBeLessThan(limits.headersTimeoutMs! + 1000);
      const kept = await rawConnect(backend.url);
      kept.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
      await kept.answer(/"ok":true/);
      const answeredAt = Date.now();
      await kept.closed;
      // Node adds one second to the keep-alive time (its guard against a client reusing the socket as it closes).
      expect(Date.now() - answeredAt).toBeLessThan(limits.keepAliveTimeoutMs! + 1000 + 500);
    });

    it('destroys the socket of a malformed request even while the client keeps writing', async () => {
      const conn = await rawConnect(backend.url);
      conn.write('NOT HTTP AT ALL\r\n\r\n');
      void conn.trickle(Buffer.alloc(10_000, 120), 1, 10);
      const closedAfter = await conn.closed;
      expect(closedAfter).toBeLessThan(1000);
      expect(conn.received()).toMatch(/^HTTP\/1\.1 400/);
    });
  });

  describe('body pace', () => {
    it('cuts a body that trickles in below the minimum rate, keeping nothing of it', async () => {
      const body = Buffer.alloc(1 * MiB, 5);
      const digest = sha(body);
      const conn = await rawConnect(backend.url);
      const linesBefore = logged.length;
      conn.write(signedHead(laptop.signer, { method: 'PUT', path: `/v1/blobs/${digest}`, size: body.length, sha256: digest }));
      const sent = conn.trickle(body, 100, 20);
      const closedAfter = await conn.closed;
      expect(closedAfter).toBeLessThan(4 * limits.bodyRateWindowMs! + 500);
      expect(await sent).toBeLessThan(body.length);
      // The socket is cut the moment the pace fails; the handler then drops what it kept and logs the cut last.
      const cut = await waitFor('the cut to be logged', async () => logged.slice(linesBefore).find((line) => line.includes(' cut off: ')));
      expect(cut).toMatch(/^backend: PUT \/v1\/blobs\/[0-9a-f]{64} cut off: the body arrived slower than 65536 bytes a second$/);
      expect(await storage.partialBlobs()).toBe(0);
      expect((await laptop.client.getBlob(digest)).ok).toBe(false);
    });

    it('takes a slow but steady upload of a few MiB that lasts longer than every time limit', async () => {
      const body = Buffer.alloc(3 * MiB);
      for (let i = 0; i < body.length; i += 4096) body.writeUInt32BE(i, i);
      const digest = sha(body);
      const conn = await rawConnect(backend.url);
      const started = Date.now();
      conn.write(signedHead(laptop.signer, { method: 'PUT', path: `/v1/blobs/${digest}`, size: body.length, sha256: digest }));
      expect(await conn.trickle(body, 48 * 1024, 30)).toBe(body.length);
      const answer = await conn.answer(/\r\n\r\n\{.*\}/s);
      const took = Date.now() - started;
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(took).toBeGreaterThan(limits.idleTimeoutMs! + limits.headersTimeoutMs! + limits.keepAliveTimeoutMs!);
      const read = await laptop.client.getBlob(digest);
      expect(read.ok && sha(Buffer.from(read.value))).toBe(digest);
    });
  });

  describe('push streams', () => {
    it("keeps at most the cap of one device's streams open, closing its oldest", async () => {
      const opened: (() => void)[] = [];
      const errors: number[] = [];
      const streams = [0, 1, 2].map((i) => {
        let onOpen!: () => void;
        const open = new Promise<void>((resolve) => (onOpen = resolve));
        const close = openPushStream(
          laptop.client,
          () => undefined,
          { onOpen: () => onOpen(), onError: () => errors.push(i) },
          { initialBackoffMs: 60_000 },
        );
        opened.push(close);
        return open;
      });
      for (const open of streams) {
        await open;
        await sleep(50);
      }
      await expect.poll(() => backend.push.size).toBe(2);
      opened.forEach((close) => close());
    });
  });
});
