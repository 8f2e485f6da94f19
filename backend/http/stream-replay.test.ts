/**
 * A reconnecting push stream resumes by cursor: every event carries the stream's place in the push
 * log as its SSE id, and a device that comes back with `Last-Event-ID` is replayed, once and in
 * order, what its account was sent while it was away — through a relay taken down and brought back
 * on either store, and across a SIGKILLed instance to the other one on the same database — with no
 * full re-read (`baton-replay: replayed`). A cursor the log cannot honour gets `full`.
 */
import { afterEach, expect, it } from 'vitest';
import type { PushMessage } from '../../shared/api/push.ts';
import { startBackend } from '../backend.ts';
import { startBackendProcess, type BackendProcess } from '../../dev-env/backend-process.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage } from '../../dev-env/store-kinds.ts';
import { startTcpRelay } from '../../dev-env/tcp-relay.ts';
import { freshDatabase } from '../../dev-env/test-postgres.ts';
import { createBackendClient, type BackendClient } from '../../electron/sync/backend-client.ts';
import { openPushStream } from '../../electron/sync/push-stream.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A's stream on `client`: the sessions it is sent, in order, and how each (re)open caught up. */
function follow(client: BackendClient) {
  const sessions: string[] = [];
  const opens: boolean[] = [];
  const close = openPushStream(
    client,
    (m: PushMessage) => m.type === 'session' && sessions.push(m.session.id),
    { onOpen: ({ replayed }) => opens.push(replayed) },
    // Slow to come back, so the messages below are surely sent while the stream is down.
    { initialBackoffMs: 800, maxBackoffMs: 800 },
  );
  cleanups.push(close);
  return { sessions, opens };
}

async function createSessions(device: TestDevice, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const sessionId = newId();
    const made = await device.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    if (!made.ok) throw new Error(`createSession: ${made.code}`);
    ids.push(sessionId);
  }
  return ids;
}

it.each(STORE_KINDS)(
  'on the %s store, replays once and in order what a device missed while its connection was down, with no full re-read',
  async (kind) => {
    const storage = await testStorage(kind, 'baton-replay');
    cleanups.push(() => storage.cleanup());
    const backend = await startBackend(storage.options);
    cleanups.push(() => backend.close());
    const relay = await startTcpRelay(backend.url);
    cleanups.push(() => relay.down());
    const a = newTestDevice(relay.url, 'a');
    const b = newTestDevice(backend.url, 'b');
    await createTestAccount(a);
    await joinTestDevice(a, b);
    const stream = follow(a.client);
    await expect.poll(() => stream.opens, { timeout: 5000 }).toEqual([false]);
    const before = await createSessions(b, 2);
    await expect.poll(() => stream.sessions, { timeout: 5000 }).toEqual(before);

    await relay.down();
    const during = await createSessions(b, 5);
    await relay.up();
    await expect.poll(() => stream.opens, { timeout: 10_000 }).toEqual([false, true]);
    const after = await createSessions(b, 2);
    await expect.poll(() => stream.sessions, { timeout: 5000 }).toEqual([...before, ...during, ...after]);
  },
);

it('after its instance is SIGKILLed, a device fails over to the other instance and is replayed exactly what it missed', async () => {
  const database = await freshDatabase('baton_replay');
  const instances: BackendProcess[] = [];
  for (let i = 0; i < 2; i++) instances.push(await startBackendProcess(['--database', database]));
  cleanups.push(() => Promise.all(instances.map((instance) => instance.stop('SIGKILL'))));
  const [first, second] = instances as [BackendProcess, BackendProcess];
  const a = newTestDevice(first.url, 'a');
  const b = newTestDevice(second.url, 'b');
  await createTestAccount(a);
  await joinTestDevice(a, b);
  const client = createBackendClient({ baseUrl: [first.url, second.url], signer: a.signer });
  const stream = follow(client);
  await expect.poll(() => stream.opens, { timeout: 5000 }).toEqual([false]);
  expect(client.baseUrl).toBe(first.url);
  const before = await createSessions(b, 3);
  await expect.poll(() => stream.sessions, { timeout: 5000 }).toEqual(before);

  await first.stop('SIGKILL');
  const during = await createSessions(b, 6);
  expect(stream.sessions).toEqual(before);
  await expect.poll(() => stream.opens, { timeout: 10_000 }).toEqual([false, true]);
  expect(client.baseUrl).toBe(second.url);
  const after = await createSessions(b, 2);
  await expect.poll(() => stream.sessions, { timeout: 5000 }).toEqual([...before, ...during, ...after]);
});

it.each(STORE_KINDS)('on the %s store, answers a cursor of another log, or none, with a full catch-up', async (kind) => {
  const storage = await testStorage(kind, 'baton-replay');
  cleanups.push(() => storage.cleanup());
  const backend = await startBackend(storage.options);
  cleanups.push(() => backend.close());
  const a = newTestDevice(backend.url, 'a');
  await createTestAccount(a);
  const replayOf = async (lastEventId?: string) => {
    const controller = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const response = await a.client.signedFetch('GET', '/v1/stream', { signal: controller.signal, headers });
    controller.abort();
    return response.headers.get('baton-replay');
  };
  expect(await replayOf()).toBe('full');
  expect(await replayOf('someotherlog:0')).toBe('full');
  expect(await replayOf('not a cursor')).toBe('full');
  const log = backend.push.log!;
  expect(await replayOf(`${log.logId}:${log.floor()}`)).toBe('replayed');
});
