/**
 * A checkpoint that travels inside its transition is kept only when that transition commits, over
 * real HTTP on a real SQLite data folder and a real PostgreSQL database: relinquish transitions that
 * lose their compare-and-set leave neither a record nor a body, while a body another transition
 * already named stays, and the winning transition's body is kept.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../backend.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

let storage: TestStorage;
let backend: RunningBackend;
let laptop: TestDevice;
let desktop: TestDevice;

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-inline');
    // The collector does not run during the test: what is left is what the requests left.
    backend = await startBackend({ ...storage.options, retention: { intervalMs: 24 * 3_600_000 } });
    laptop = newTestDevice(backend.url, 'laptop');
    desktop = newTestDevice(backend.url, 'desktop');
    await createTestAccount(laptop);
    await joinTestDevice(laptop, desktop);
  });

  afterAll(async () => {
    await backend.close();
    storage.cleanup();
  });

  /** Blob records of the account and bodies stored underneath (files, or rows of blob_bodies). */
  async function counts(): Promise<{ records: number; bodies: number }> {
    const [records] = await storage.rows('SELECT count(*) AS n FROM blobs');
    const bodies =
      'dataDir' in storage.options
        ? readdirSync(join(storage.options.dataDir, 'blobs')).filter((name) => /^[0-9a-f]{64}$/.test(name)).length
        : Number((await storage.rows('SELECT count(*) AS n FROM blob_bodies'))[0]!.n);
    return { records: Number(records!.n), bodies };
  }

  /** A session with a handoff at source-quiescing (generation 1). */
  async function quiescing(): Promise<string> {
    const sessionId = newId();
    const handoffId = newId();
    expect((await laptop.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
    const body = { handoffId, sessionId, targetDeviceId: desktop.id, generation: 1 };
    expect((await laptop.client.call('createHandoff', { body })).ok).toBe(true);
    const steps = [
      [desktop, 'requested', 'target-prepared'],
      [laptop, 'target-prepared', 'source-quiescing'],
    ] as const;
    for (const [by, from, to] of steps)
      expect((await by.client.call('transitionHandoff', { params: { handoffId }, body: { from, to, generation: 1 } })).ok).toBe(true);
    return handoffId;
  }

  const inline = () => {
    const bytes = Buffer.from(opaque(300));
    return {
      checkpoint: { digest: createHash('sha256').update(bytes).digest('hex'), size: bytes.length },
      checkpointBody: bytes.toString('base64url'),
    };
  };

  const relinquish = (handoffId: string, generation: number, body: ReturnType<typeof inline>) =>
    laptop.client.call('transitionHandoff', {
      params: { handoffId },
      body: { from: 'source-quiescing', to: 'source-relinquished-and-checkpointed', generation, ...body },
    });

  it('leaves no record and no body of 20 inline checkpoints whose transitions lost their compare-and-set', async () => {
    const before = await counts();
    const handoffId = await quiescing();
    for (let i = 0; i < 20; i += 1) {
      const lost = await relinquish(handoffId, 2, inline());
      expect(lost.ok || lost.code).toBe('stale_generation');
    }
    expect(await counts()).toEqual(before);
    const won = inline();
    expect((await relinquish(handoffId, 1, won)).ok).toBe(true);
    expect(await counts()).toEqual({ records: before.records + 1, bodies: before.bodies + 1 });
    expect((await laptop.client.getBlob(won.checkpoint.digest)).ok).toBe(true);
  });

  it('keeps a body another transition named when a later one carrying it loses', async () => {
    const named = inline();
    expect((await relinquish(await quiescing(), 1, named)).ok).toBe(true);
    const before = await counts();
    const lost = await relinquish(await quiescing(), 2, named);
    expect(lost.ok || lost.code).toBe('stale_generation');
    expect(await counts()).toEqual(before);
    const read = await laptop.client.getBlob(named.checkpoint.digest);
    expect(read.ok && Buffer.from(read.value).toString('base64url')).toBe(named.checkpointBody);
  });
});
