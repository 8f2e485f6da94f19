/**
 * What devices post to a session's log (answers, Move here requests) is bounded, over real HTTP on a
 * real SQLite data folder and a real PostgreSQL database: one device is held to its window's worth
 * and all devices together to the session's, each beyond it answered 429 with Retry-After; posts are
 * pruned once the owner has taken them, once the session moved on, or after a day — never while the
 * window counts them — and a pruned log never numbers a post twice. And as a process: a device
 * posting 400 answers of 64 KiB as fast as it can leaves the backend within a bound of its memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../backend.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import { DEFAULT_RETENTION } from '../retention.ts';
import { startBackendProcess, type BackendProcess } from '../../dev-env/backend-process.ts';
import { memoryOf, sampleRss } from '../../dev-env/process-memory.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

/** The largest sealed body an answer may carry (shared/api/sessions.ts). */
const ANSWER_MAX = 64 << 10;
const WINDOW = DEFAULT_LIMITS.postWindowMs;

let storage: TestStorage;
let backend: RunningBackend;
let now: number;
let laptop: TestDevice;
let desktop: TestDevice;
let phone: TestDevice;

/** Posts an opaque sealed body of `chars` characters to the session's log. */
const post = (device: TestDevice, sessionId: string, chars = 200, generation = 1) =>
  device.client.call('postAnswer', { params: { sessionId }, body: { generation, sealedBody: opaque((chars * 3) / 4) } });

async function newSession(): Promise<string> {
  const sessionId = newId();
  expect((await laptop.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
  return sessionId;
}

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  const limits = { maxPostsPerDevice: 5, maxPostsPerSession: 8, maxPostBytesPerDevice: 100_000 };

  beforeEach(async () => {
    storage = await testStorage(kind, 'baton-posts');
    now = Date.now();
    backend = await startBackend({ ...storage.options, clock: () => now, limits, retention: { intervalMs: 24 * 3_600_000 } });
    laptop = newTestDevice(backend.url, 'laptop', () => now);
    desktop = newTestDevice(backend.url, 'desktop', () => now);
    phone = newTestDevice(backend.url, 'phone', () => now);
    await createTestAccount(laptop);
    await joinTestDevice(laptop, desktop);
    await joinTestDevice(laptop, phone);
  });

  afterEach(async () => {
    await backend.close();
    storage.cleanup();
  });

  const rows = async (sessionId: string) =>
    Number((await storage.rows('SELECT count(*) AS n FROM session_answers WHERE session_id = ?', [sessionId]))[0]!.n);

  it('holds one device to its posts per window and all devices to the session’s, answering 429 with Retry-After beyond', async () => {
    const sessionId = await newSession();
    for (let i = 0; i < limits.maxPostsPerDevice; i += 1) expect((await post(desktop, sessionId)).ok).toBe(true);
    const refused = await post(desktop, sessionId);
    expect(refused.ok || [refused.status, refused.code, refused.details?.cap]).toEqual([429, 'rate_limited', 'device']);
    now += 10_000;
    const raw = await desktop.client.signedFetch('POST', `/v1/sessions/${sessionId}/answers`, {
      body: Buffer.from(JSON.stringify({ generation: 1, sealedBody: opaque() })),
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe(String((WINDOW - 10_000) / 1000));

    // The other devices together fill what the session takes in the window.
    for (let i = 0; i < limits.maxPostsPerSession - limits.maxPostsPerDevice; i += 1) expect((await post(phone, sessionId)).ok).toBe(true);
    const full = await post(phone, sessionId);
    expect(full.ok || [full.code, full.details?.cap]).toEqual(['rate_limited', 'session']);
    expect(await rows(sessionId)).toBe(limits.maxPostsPerSession);

    // Once the window has moved past them, there is room again.
    now += WINDOW;
    expect((await post(desktop, sessionId)).ok).toBe(true);
  });

  it('counts the bytes of posts too: a device sending large answers is held to its window’s bytes', async () => {
    const sessionId = await newSession();
    expect((await post(desktop, sessionId, 40_000)).ok).toBe(true);
    expect((await post(desktop, sessionId, 40_000)).ok).toBe(true);
    const third = await post(desktop, sessionId, 40_000);
    expect(third.ok || [third.code, third.details?.cap]).toEqual(['rate_limited', 'device']);
    expect((await post(desktop, sessionId, 1_000)).ok).toBe(true);
  });

  it('prunes posts the owner has taken, those of an older generation and day-old ones, never while the window counts them', async () => {
    const sessionId = await newSession();
    for (let i = 0; i < 3; i += 1) expect((await post(desktop, sessionId)).ok).toBe(true);
    // The owner reads on from after the second: it has taken the first two.
    expect((await laptop.client.call('listAnswers', { params: { sessionId }, query: { after: 2 } })).ok).toBe(true);
    // A non-owner's cursor takes nothing.
    expect((await desktop.client.call('listAnswers', { params: { sessionId }, query: { after: 3 } })).ok).toBe(true);
    expect((await backend.collect()).posts).toBe(0);
    now += WINDOW + 1;
    expect((await backend.collect()).posts).toBe(2);
    expect(await rows(sessionId)).toBe(1);
    now += DEFAULT_RETENTION.postMaxAgeMs;
    expect((await backend.collect()).posts).toBe(1);
    expect(await rows(sessionId)).toBe(0);
    // A pruned log numbers on: the owner's cursor never skips a new post.
    const next = await post(desktop, sessionId);
    expect(next.ok && next.value.answer.seq).toBe(4);
  });
});

describe('a backend process flooded with answers', () => {
  let folder: string;
  let server: BackendProcess;

  afterAll(async () => {
    await server?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('takes 400 answers of 64 KiB from one device with its memory and rows bounded, refusing what is beyond the cap with 429', async () => {
    folder = mkdtempSync(join(tmpdir(), 'baton-post-flood-'));
    server = await startBackendProcess(folder);
    const owner = newTestDevice(server.url, 'owner');
    const flooder = newTestDevice(server.url, 'flooder');
    await createTestAccount(owner);
    await joinTestDevice(owner, flooder);
    const sessionId = newId();
    expect((await owner.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
    // The idle baseline: after a few ordinary posts, so what the first request costs is in it.
    for (let i = 0; i < 3; i += 1) await post(flooder, sessionId);
    const idle = memoryOf(server.child.pid!).rssMiB;
    const sampler = sampleRss(server.child.pid!);
    const statuses: number[] = [];
    for (let batch = 0; batch < 40; batch += 1) {
      const sent = await Promise.all(Array.from({ length: 10 }, () => post(flooder, sessionId, ANSWER_MAX)));
      statuses.push(...sent.map((s) => (s.ok ? 200 : s.status)));
    }
    const peak = sampler.stop();
    const accepted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(accepted).toBeLessThanOrEqual(Math.ceil(DEFAULT_LIMITS.maxPostBytesPerDevice / ANSWER_MAX));
    const listed = await owner.client.call('listAnswers', { params: { sessionId }, query: { limit: 1000 } });
    expect(listed.ok && listed.value.answers.length).toBe(accepted + 3);
    expect(peak - idle, `peak ${peak.toFixed(1)} MiB over an idle ${idle.toFixed(1)} MiB`).toBeLessThan(48);
  }, 120_000);
});
