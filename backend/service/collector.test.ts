/**
 * Checkpoint retention over real HTTP, on a real SQLite data folder and a real PostgreSQL database: the
 * bodies a handoff in progress needs and those of each session's newest N completed are never
 * collected; the one before them, an unnamed upload past its grace and a cancelled move's body are;
 * a transition racing the collection of its body either names a body that stays or is refused; a
 * pass cut short leaves every record with its body and finishes on the next.
 */
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HandoffState } from '../../shared/handoff-states.ts';
import { FORWARD_STATES } from '../../shared/handoff-states.ts';
import { startBackend, type RunningBackend } from '../backend.ts';
import { DEFAULT_RETENTION } from '../retention.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';
import pg from 'pg';

const GRACE = DEFAULT_RETENTION.unnamedGraceMs;
const KEEP = 3;

let storage: TestStorage;
let backend: RunningBackend;
let now: number;
let laptop: TestDevice;
let desktop: TestDevice;

interface Body {
  digest: string;
  size: number;
  bytes: Buffer;
}

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  const start = (port = 0) =>
    startBackend({ ...storage.options, port, clock: () => now, retention: { keepCompleted: KEEP, intervalMs: 24 * 3_600_000 } });

  beforeEach(async () => {
    storage = await testStorage(kind, 'baton-retention');
    now = Date.now();
    backend = await start();
    laptop = newTestDevice(backend.url, 'laptop', () => now);
    desktop = newTestDevice(backend.url, 'desktop', () => now);
    await createTestAccount(laptop);
    await joinTestDevice(laptop, desktop);
  });

  afterEach(async () => {
    await backend.close();
    storage.cleanup();
  });

  async function upload(device: TestDevice = laptop): Promise<Body> {
    const bytes = Buffer.from(opaque(200));
    const digest = createHash('sha256').update(bytes).digest('hex');
    expect((await device.client.putBlob(digest, bytes)).ok).toBe(true);
    return { digest, size: bytes.length, bytes };
  }

  /** Whether the body's bytes are stored underneath (a file, or a row of blob_bodies). */
  async function bodyStored(digest: string): Promise<boolean> {
    if ('dataDir' in storage.options) return existsSync(join(storage.options.dataDir, 'blobs', digest));
    return (await storage.rows('SELECT 1 FROM blob_bodies WHERE digest = ?', [digest])).length === 1;
  }

  /** Whether the account can read the body back whole. */
  async function readable(body: Body, device: TestDevice = laptop): Promise<boolean> {
    const read = await device.client.getBlob(body.digest);
    if (!read.ok) expect(read.status).toBe(404);
    return read.ok && Buffer.from(read.value).equals(body.bytes);
  }

  async function newSession(owner: TestDevice): Promise<string> {
    const sessionId = newId();
    expect((await owner.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
    return sessionId;
  }

  /** A handoff of `sessionId` (at `generation`, from `source` to `target`) walked forward to `state`, naming `body` as it passes. */
  async function handoffTo(
    state: HandoffState,
    body: Body,
    {
      sessionId,
      generation = 1,
      source = laptop,
      target = desktop,
    }: { sessionId: string; generation?: number; source?: TestDevice; target?: TestDevice },
  ): Promise<string> {
    const handoffId = newId();
    const created = await source.client.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: target.id, generation } });
    expect(created.ok).toBe(true);
    for (const to of FORWARD_STATES.slice(1, FORWARD_STATES.indexOf(state as (typeof FORWARD_STATES)[number]) + 1)) {
      const from = FORWARD_STATES[FORWARD_STATES.indexOf(to) - 1]!;
      const by = ['target-prepared', 'ownership-transferred', 'target-activating', 'completed'].includes(to) ? target : source;
      const extra =
        to === 'source-relinquished-and-checkpointed'
          ? { checkpoint: { digest: body.digest, size: body.size } }
          : to === 'completed'
            ? { resumePath: 'checkpoint-import' as const }
            : {};
      const gen = ['target-activating', 'completed'].includes(to) ? generation + 1 : generation;
      const moved = await by.client.call('transitionHandoff', { params: { handoffId }, body: { from, to, generation: gen, ...extra } });
      expect(moved.ok, `${from} → ${to}`).toBe(true);
    }
    return handoffId;
  }

  const kept = async (handoffId: string) => {
    const read = await laptop.client.call('getHandoff', { params: { handoffId } });
    expect(read.ok).toBe(true);
    return read.ok && read.value.handoff.checkpointKept;
  };

  const cancel = (device: TestDevice, handoffId: string, from: HandoffState, generation: number) =>
    device.client.call('transitionHandoff', {
      params: { handoffId },
      body: { from, to: 'cancelled', generation, reason: { code: 'user_cancelled', sealed: null } },
    });

  it('never collects the body a handoff in progress needs, at any state that has one, however long ago it was put', async () => {
    const inProgress: [string, Body][] = [];
    for (const state of ['source-relinquished-and-checkpointed', 'ownership-transferred', 'target-activating'] as const) {
      const body = await upload();
      inProgress.push([await handoffTo(state, body, { sessionId: await newSession(laptop) }), body]);
    }
    now += 10 * GRACE;
    await backend.collect();
    now += 10 * GRACE;
    await backend.collect();
    for (const [handoffId, body] of inProgress) {
      expect(await kept(handoffId)).toBe(true);
      expect(await readable(body, desktop)).toBe(true);
    }
  });

  it("keeps the bodies of each session's newest N completed moves and collects the one before them", async () => {
    const sessionId = await newSession(laptop);
    const moves: [string, Body][] = [];
    for (let i = 0; i <= KEEP; i++) {
      const [source, target] = i % 2 === 0 ? [laptop, desktop] : [desktop, laptop];
      const body = await upload(source);
      moves.push([await handoffTo('completed', body, { sessionId, generation: i + 1, source, target }), body]);
      now += 1000;
    }
    // Another session's only completed move is its newest: kept.
    const other = await upload();
    const otherMove = await handoffTo('completed', other, { sessionId: await newSession(laptop) });
    expect(await kept(moves[0]![0])).toBe(false);
    expect(await Promise.all(moves.slice(1).map(([id]) => kept(id)))).toEqual([true, true, true]);
    await backend.collect();
    expect(await readable(moves[0]![1])).toBe(false);
    now += GRACE + 1;
    await backend.collect();
    expect(await bodyStored(moves[0]![1].digest)).toBe(false);
    for (const [handoffId, body] of [...moves.slice(1), [otherMove, other] as const]) {
      expect(await kept(handoffId)).toBe(true);
      expect(await readable(body)).toBe(true);
    }
  });

  it('keeps an upload no transition has named for its grace, then collects it', async () => {
    const body = await upload();
    now += GRACE - 60_000;
    await backend.collect();
    expect(await readable(body)).toBe(true);
    now += 120_000;
    await backend.collect();
    expect(await readable(body)).toBe(false);
    expect(await bodyStored(body.digest)).toBe(false);
  });

  it('collects the body of a move cancelled before the transfer, and keeps one cancelled after it until the next move', async () => {
    const before = await upload();
    const beforeMove = await handoffTo('source-relinquished-and-checkpointed', before, { sessionId: await newSession(laptop) });
    // The answer (and push) of the cancel already says so.
    const cancelled = await cancel(laptop, beforeMove, 'source-relinquished-and-checkpointed', 1);
    expect(cancelled.ok && cancelled.value.handoff.checkpointKept).toBe(false);
    const after = await upload();
    const sessionId = await newSession(laptop);
    const afterMove = await handoffTo('target-activating', after, { sessionId });
    // Activation failed on the target, which keeps the session at generation 2 and may retry from this body.
    expect((await cancel(desktop, afterMove, 'target-activating', 2)).ok).toBe(true);
    expect([await kept(beforeMove), await kept(afterMove)]).toEqual([false, true]);
    now += GRACE + 1;
    await backend.collect();
    expect(await readable(before)).toBe(false);
    expect(await bodyStored(before.digest)).toBe(false);
    expect(await readable(after, desktop)).toBe(true);
    // The target moves the session on: that failed activation will not be retried.
    const next = await desktop.client.call('createHandoff', {
      body: { handoffId: newId(), sessionId, targetDeviceId: laptop.id, generation: 2 },
    });
    expect(next.ok).toBe(true);
    expect(await kept(afterMove)).toBe(false);
    now += GRACE + 1;
    await backend.collect();
    expect(await readable(after, desktop)).toBe(false);
    expect(await bodyStored(after.digest)).toBe(false);
  });

  it('refuses a transition naming a body already collected, and never collects one a committed transition named', async () => {
    for (let round = 0; round < 10; round++) {
      const body = await upload();
      const handoffId = await handoffTo('source-quiescing', body, { sessionId: await newSession(laptop) });
      // Past its grace: collectable until a transition names it. Both race; the order varies with the round.
      now += GRACE + 1;
      const name = () =>
        laptop.client.call('transitionHandoff', {
          params: { handoffId },
          body: {
            from: 'source-quiescing',
            to: 'source-relinquished-and-checkpointed',
            generation: 1,
            checkpoint: { digest: body.digest, size: body.size },
          },
        });
      // The collection begins a little later each round: from before the request is sent to after it is answered.
      const naming = name();
      const [named] = await Promise.all([naming, sleep(round).then(() => backend.collect())]);
      now += GRACE + 1;
      await backend.collect();
      if (named.ok) {
        expect(await kept(handoffId)).toBe(true);
        expect(await readable(body, desktop)).toBe(true);
      } else {
        expect([named.code, named.details?.field]).toEqual(['validation_failed', 'checkpoint']);
        expect(await kept(handoffId)).toBe(false);
        expect(await readable(body)).toBe(false);
        expect(await bodyStored(body.digest)).toBe(false);
      }
    }
  });

  it('keeps a body uploaded again after its record was collected, before its removal', async () => {
    const body = await upload();
    now += GRACE + 1;
    // The records' half of a pass: the digest is queued for removal, the body still there.
    expect(await backend.store.collectBlobRecords({ unnamedBefore: now - GRACE, limit: 100, at: now })).toBe(1);
    expect((await laptop.client.putBlob(body.digest, body.bytes)).ok).toBe(true);
    await backend.collect();
    expect(await readable(body)).toBe(true);
    const handoffId = await handoffTo('source-relinquished-and-checkpointed', body, { sessionId: await newSession(laptop) });
    expect(await kept(handoffId)).toBe(true);
  });

  it('finishes on the next start a pass cut off after its records, and removes a body a crash left with no record', async () => {
    const bodies = [await upload(), await upload(), await upload()];
    const named = await upload();
    await handoffTo('source-relinquished-and-checkpointed', named, { sessionId: await newSession(laptop) });
    now += GRACE + 1;
    // A pass cut off after deleting the records (the body removal never ran), then a restart.
    expect(await backend.store.collectBlobRecords({ unnamedBefore: now - GRACE, limit: 100, at: now })).toBe(3);
    const orphan = createHash('sha256').update('cut off between its body and its record').digest('hex');
    if ('dataDir' in storage.options)
      writeFileSync(join(storage.options.dataDir, 'blobs', orphan), 'cut off between its body and its record');
    else {
      // A body's commit queues it for collection in the same transaction.
      await storage.rows(`INSERT INTO blob_bodies (digest, upload_id, size, chunks, created_at, put_at) VALUES (?, 'cut', 3, 1, ?, ?)`, [
        orphan,
        now,
        now,
      ]);
      await storage.rows(`INSERT INTO blob_chunks (upload_id, seq, data) VALUES ('cut', 0, '\\x616263')`);
      await storage.rows('INSERT INTO blob_garbage (digest, due_at) VALUES (?, ?)', [orphan, now]);
    }
    const { port } = backend;
    await backend.close();
    backend = await start(port);
    expect(await bodyStored(orphan)).toBe(true);
    for (const body of bodies) expect(await bodyStored(body.digest)).toBe(true);
    now += GRACE + 1;
    await backend.collect();
    for (const body of bodies) expect(await bodyStored(body.digest)).toBe(false);
    expect(await bodyStored(orphan)).toBe(false);
    expect(await readable(named, desktop)).toBe(true);
  });
});

describe('on PostgreSQL, with a transition naming the body mid-commit', () => {
  it('a collection that meets it waits, then sees the body held and leaves it; two instances collect in turn', async () => {
    storage = await testStorage('postgres', 'baton_retention_lock');
    now = Date.now();
    const database = (storage.options as { database: string }).database;
    const instances = [0, 1].map(() => startBackend({ database, clock: () => now, retention: { intervalMs: 24 * 3_600_000 } }));
    const [one, two] = await Promise.all(instances);
    const device = newTestDevice(one!.url, 'laptop', () => now);
    await createTestAccount(device);
    const bytes = Buffer.from(opaque(200));
    const digest = createHash('sha256').update(bytes).digest('hex');
    expect((await device.client.putBlob(digest, bytes)).ok).toBe(true);
    const others = await Promise.all([0, 1, 2].map(() => Buffer.from(opaque(100))));
    for (const other of others)
      expect((await device.client.putBlob(createHash('sha256').update(other).digest('hex'), other)).ok).toBe(true);
    now += DEFAULT_RETENTION.unnamedGraceMs + 1;
    // What the transition does to the record, in a transaction left open: the collection must wait for it.
    const naming = new pg.Client({ connectionString: database });
    await naming.connect();
    try {
      await naming.query('BEGIN');
      await naming.query('UPDATE blobs SET named = named + 1, holds = holds + 1 WHERE digest = $1', [digest]);
      const collecting = Promise.all([one!.collect(), two!.collect()]);
      await sleep(300);
      await naming.query('COMMIT');
      const reports = await collecting;
      // One instance collected the three unnamed bodies; the other found it busy or nothing left.
      expect(reports.reduce((sum, r) => sum + r.records, 0)).toBe(3);
      expect((await device.client.getBlob(digest)).ok).toBe(true);
    } finally {
      await naming.end();
      await Promise.all([one!.close(), two!.close()]);
      storage.cleanup();
    }
  });
});
