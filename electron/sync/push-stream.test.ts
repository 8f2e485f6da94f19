/**
 * The push-stream client: SSE parsing, message validation, reconnection after the backend restarts,
 * and failover between several addresses of one backend (relays in front of one real backend, as
 * instances on one database would be).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBackend } from '../../backend/backend.ts';
import type { PushMessage } from '../../shared/api/push.ts';
import { createBackendClient } from './backend-client.ts';
import { openPushStream, parseSseChunk } from './push-stream.ts';
import { startBrokenEndpoint } from '../../dev-env/broken-endpoint.ts';
import { createTestAccount, newId, newTestDevice, opaque } from '../../dev-env/sync-fixtures.ts';
import { startTcpRelay } from '../../dev-env/tcp-relay.ts';

describe('the push stream client', () => {
  it('splits events, joins multi-line data, skips comments and keeps an unfinished tail', () => {
    expect(parseSseChunk(': keep-alive\n\ndata: {"a":1}\n\nretry: 5\n\ndata: x\ndata: y\r\n\r\ndata: {"par')).toEqual({
      events: ['{"a":1}', 'x\ny'],
      rest: 'data: {"par',
    });
  });

  it('keeps the last SSE id of the complete events, a keep-alive with only an id included', () => {
    expect(parseSseChunk('id: L:5\ndata: x\n\nid: L:7\n: keep-alive\n\nid: L:9\ndata: y')).toEqual({
      events: ['x'],
      rest: 'id: L:9\ndata: y',
      lastId: 'L:7',
    });
  });

  it('ignores an invalid message, reporting it, and delivers the valid ones', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"handoff","handoff":{"id":"nope"}}\n\n');
      res.write(`data: ${JSON.stringify({ type: 'memory', topic: 't' })}\n\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const device = newTestDevice(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'x');
    const messages: PushMessage[] = [];
    const errors: string[] = [];
    const close = openPushStream(device.client, (m) => messages.push(m), { onError: (e) => errors.push(e.code) });
    try {
      await expect.poll(() => messages, { timeout: 2000 }).toEqual([{ type: 'memory', topic: 't' }]);
      expect(errors).toContain('bad_message');
    } finally {
      close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('reconnects with backoff after the backend restarts and receives changes again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'baton-push-'));
    let backend = await startBackend({ dataDir });
    const port = backend.port;
    const device = newTestDevice(backend.url, 'laptop');
    await createTestAccount(device);
    const client = createBackendClient({ baseUrl: backend.url, signer: device.signer });
    const sessions: string[] = [];
    let opens = 0;
    const close = openPushStream(
      client,
      (m) => m.type === 'session' && sessions.push(m.session.id),
      { onOpen: () => opens++ },
      { initialBackoffMs: 20, maxBackoffMs: 100 },
    );
    try {
      await expect.poll(() => opens, { timeout: 2000 }).toBe(1);
      await backend.close();
      backend = await startBackend({ dataDir, port });
      await expect.poll(() => opens, { timeout: 3000 }).toBe(2);
      const sessionId = newId();
      expect((await client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
      await expect.poll(() => sessions, { timeout: 2000 }).toEqual([sessionId]);
    } finally {
      close();
      await backend.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('fails over to the next address when the one it streams from goes down, and back when that one returns', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'baton-push-failover-'));
    const backend = await startBackend({ dataDir });
    const first = await startTcpRelay(backend.url);
    const second = await startTcpRelay(backend.url);
    const device = newTestDevice(backend.url, 'laptop');
    await createTestAccount(device);
    const client = createBackendClient({ baseUrl: [first.url, second.url], signer: device.signer });
    const sessions: string[] = [];
    const opened: string[] = [];
    const close = openPushStream(
      client,
      (m) => m.type === 'session' && sessions.push(m.session.id),
      { onOpen: () => opened.push(client.baseUrl) },
      { initialBackoffMs: 20, maxBackoffMs: 100 },
    );
    const created = async () => {
      const sessionId = newId();
      expect((await device.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
      return sessionId;
    };
    try {
      await expect.poll(() => opened, { timeout: 2000 }).toEqual([first.url]);
      await first.down();
      await expect.poll(() => opened, { timeout: 3000 }).toEqual([first.url, second.url]);
      const one = await created();
      await expect.poll(() => sessions, { timeout: 2000 }).toEqual([one]);

      // Both down: unreachable, naming both; the first back: the stream opens there.
      await second.down();
      await expect.poll(() => client.reachability.view().state, { timeout: 3000 }).toBe('unreachable');
      expect(client.reachability.view().tried.sort()).toEqual([first.url, second.url].sort());
      await first.up();
      await expect.poll(() => opened, { timeout: 3000 }).toEqual([first.url, second.url, first.url]);
      expect(client.reachability.view()).toMatchObject({ state: 'reachable', current: first.url });
      const two = await created();
      await expect.poll(() => sessions, { timeout: 2000 }).toEqual([one, two]);
    } finally {
      close();
      await first.down();
      await second.down();
      await backend.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('moves on from an address that answers 503 or never answers the stream request, and reopens at once on new addresses', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'baton-push-broken-'));
    const backend = await startBackend({ dataDir });
    const unavailable = await startBrokenEndpoint('http-503');
    const silent = await startBrokenEndpoint('silent');
    const relay = await startTcpRelay(backend.url);
    const device = newTestDevice(backend.url, 'laptop');
    await createTestAccount(device);
    const client = createBackendClient({ baseUrl: [unavailable.url, silent.url, backend.url], signer: device.signer });
    const opened: string[] = [];
    // A round of addresses that opens no stream waits out a backoff far longer than the polls below
    // wait: a stream they see open was opened without one, however slow the machine.
    const backoffMs = 300_000;
    const pollMs = 20_000;
    const close = openPushStream(
      client,
      () => undefined,
      { onOpen: () => opened.push(client.baseUrl) },
      // The silent address is passed over at its deadline; the backend answers well within it.
      { initialBackoffMs: backoffMs, maxBackoffMs: backoffMs, connectTimeoutMs: 1000 },
    );
    try {
      await expect.poll(() => opened, { timeout: pollMs }).toEqual([backend.url]);
      // One pass, in order: the 503 asked once, the silent one once, then the backend.
      expect([unavailable.requests.length, silent.connections]).toEqual([1, 1]);
      // New addresses: the open stream is dropped and reopened at the new first address, without the backoff.
      client.addresses.replace([relay.url]);
      await expect.poll(() => opened, { timeout: pollMs }).toEqual([backend.url, relay.url]);
    } finally {
      close();
      await unavailable.close();
      await silent.close();
      await relay.down();
      await backend.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('drops an open stream that stays silent past its idle deadline and reopens it', async () => {
    let streams = 0;
    const server = createServer((_req, res) => {
      streams++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const device = newTestDevice(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'x');
    const errors: string[] = [];
    const close = openPushStream(
      device.client,
      () => undefined,
      { onError: (e) => errors.push(e.message) },
      { initialBackoffMs: 10, idleTimeoutMs: 150 },
    );
    try {
      await expect.poll(() => streams, { timeout: 2000 }).toBeGreaterThanOrEqual(2);
      expect(errors.some((m) => m.includes('silent for 150 ms'))).toBe(true);
    } finally {
      close();
      server.closeAllConnections();
      server.close();
    }
  });
});
