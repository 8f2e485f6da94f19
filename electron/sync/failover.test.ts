/**
 * A client with several backend addresses against real backend processes: it moves on from an
 * address that hangs up, refuses connections, never answers or answers 5xx, sticks to the one that
 * works, never moves on after a 4xx, and resends with the same idempotency key — so a request whose
 * answer was lost on one instance gets the first answer from another.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteName } from '../../shared/api/routes.ts';
import { SIGNATURE_HEADERS } from '../../shared/request-signing.ts';
import { startBackendProcess, type BackendProcess } from '../../dev-env/backend-process.ts';
import { startBrokenEndpoint, type BrokenEndpoint } from '../../dev-env/broken-endpoint.ts';
import { createTestAccount, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { startTcpRelay } from '../../dev-env/tcp-relay.ts';
import { createBackendClient, type JsonRouteName } from './backend-client.ts';

let root: string;
let backend: BackendProcess;
let device: TestDevice;
const closing: (() => Promise<unknown>)[] = [];

/** A port nothing listens on (connections are refused). */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function broken(kind: Parameters<typeof startBrokenEndpoint>[0]): Promise<BrokenEndpoint> {
  const endpoint = await startBrokenEndpoint(kind);
  closing.push(() => endpoint.close());
  return endpoint;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-failover-'));
  backend = await startBackendProcess(join(root, 'a'));
  device = newTestDevice(backend.url, 'laptop');
  await createTestAccount(device);
}, 60_000);

afterAll(async () => {
  await Promise.all(closing.map((close) => close()));
  await backend?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('a client with several backend addresses', () => {
  it('moves on from an address that hangs up or refuses connections, and sticks to the one that answered', async () => {
    const hangUp = await broken('hang-up');
    const refused = await closedPort();
    const client = createBackendClient({ baseUrl: [hangUp.url, refused, backend.url], signer: device.signer });
    for (let i = 0; i < 5; i++) expect((await client.call('listSessions')).ok).toBe(true);
    expect(client.baseUrl).toBe(backend.url);
    expect(hangUp.connections).toBe(1);
    expect(client.reachability.view()).toMatchObject({ state: 'reachable', current: backend.url });
  });

  it('moves on from an address that answers 503 or never answers', async () => {
    const unavailable = await broken('http-503');
    const silent = await broken('silent');
    const client = createBackendClient({ baseUrl: [unavailable.url, silent.url, backend.url], signer: device.signer, timeoutMs: 300 });
    const sessionId = newId();
    const created = await client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    expect(created.ok && created.value.session.id).toBe(sessionId);
    expect([unavailable.requests.length, silent.connections]).toEqual([1, 1]);
  });

  it('moves on from an instance that answers 500, and counts one that only answers 500 as reached, not unreachable', async () => {
    const failing = await broken('http-500');
    const client = createBackendClient({ baseUrl: [failing.url, backend.url], signer: device.signer });
    expect((await client.call('listSessions')).ok).toBe(true);
    expect(failing.requests).toHaveLength(1);
    const alone = createBackendClient({ baseUrl: [failing.url], signer: device.signer, attempts: 2 });
    expect(await alone.call('listSessions')).toMatchObject({ ok: false, status: 500, code: 'internal' });
    expect(failing.requests).toHaveLength(3);
    expect(alone.reachability.view()).toMatchObject({ state: 'reachable', current: failing.url });
  });

  it('never moves on after a 4xx: a refusal is the backend’s word', async () => {
    // Another backend that does not know this device refuses it; the next address would have answered.
    const other = await startBackendProcess(join(root, 'other'));
    closing.push(() => other.stop());
    const behind = await startTcpRelay(backend.url);
    closing.push(() => behind.down());
    const client = createBackendClient({ baseUrl: [other.url, behind.url], signer: device.signer });
    const refused = await client.call('listSessions');
    expect(refused).toMatchObject({ ok: false, status: 401, code: 'unauthorized' });
    expect(behind.accepted).toBe(0);
    expect(client.reachability.view()).toMatchObject({ state: 'reachable', current: other.url });
  });

  it('resends a call whose answer was lost at the next address with the same idempotency key, and gets the first answer', async () => {
    // Two addresses of one backend (as two instances on one database): the first loses every answer.
    const first = await startTcpRelay(backend.url);
    const second = await startTcpRelay(backend.url);
    closing.push(
      () => first.down(),
      () => second.down(),
    );
    first.loseAnswers = true;
    const client = createBackendClient({ baseUrl: [first.url, second.url], signer: device.signer });
    const sessionId = newId();
    // Without the replay the resend would be refused as already_exists.
    const created = await client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    expect(created.ok && created.value.session.id).toBe(sessionId);
    expect([first.accepted, second.accepted]).toEqual([1, 1]);
    const listed = await device.client.call('listSessions');
    expect(listed.ok && listed.value.sessions.filter((s) => s.id === sessionId)).toHaveLength(1);
  });

  it('sends every mutating route with one idempotency key, the same at every address and in every round', async () => {
    const a = await broken('http-503');
    const b = await broken('http-503');
    const client = createBackendClient({ baseUrl: [a.url, b.url], signer: device.signer, attempts: 2 });
    // putBlob is content-addressed (a resend stores the same bytes at the same address); the stream is a GET.
    const mutating = (Object.keys(routes) as RouteName[]).filter(
      (name): name is JsonRouteName => routes[name].method !== 'GET' && name !== 'putBlob' && name !== 'stream',
    );
    expect(mutating.length).toBeGreaterThan(10);
    for (const name of mutating) {
      const params = Object.fromEntries([...routes[name].path.matchAll(/:(\w+)/g)].map((m) => [m[1]!, 'x1']));
      const before = [a.requests.length, b.requests.length];
      const result = await client.call(name, { params, body: {} } as never);
      expect(result, name).toMatchObject({ ok: false, status: 503 });
      const keys = [...a.requests.slice(before[0]), ...b.requests.slice(before[1])].map((r) => r.headers[SIGNATURE_HEADERS.idempotencyKey]);
      expect(keys, name).toHaveLength(4);
      expect(new Set(keys).size, name).toBe(1);
      expect(keys[0], name).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    }
    expect(client.reachability.view()).toMatchObject({ state: 'unreachable', tried: [a.url, b.url] });
  });

  it('reports every address unreachable as a value naming them, and is reachable again once one answers', async () => {
    const refused = await closedPort();
    const relay = await startTcpRelay(backend.url);
    closing.push(() => relay.down());
    await relay.down();
    const client = createBackendClient({ baseUrl: [refused, relay.url], signer: device.signer, attempts: 2 });
    const failed = await client.call('listSessions');
    expect(failed).toMatchObject({ ok: false, status: 0, code: 'unreachable' });
    expect(!failed.ok && failed.message).toContain(`at every address (${refused}, ${relay.url})`);
    expect(client.reachability.view()).toMatchObject({ state: 'unreachable', tried: [refused, relay.url] });
    await relay.up();
    expect((await client.call('listSessions')).ok).toBe(true);
    expect(client.reachability.view()).toMatchObject({ state: 'reachable', current: relay.url });
  });
});
