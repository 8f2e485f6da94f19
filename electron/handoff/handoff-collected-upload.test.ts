/**
 * Integration: a checkpoint upload the backend collected before the transition named it (its record
 * gone, as the collector leaves an unnamed upload past its grace), with real backend and device
 * processes. The backend refuses the relinquish that names it; the source takes the checkpoint
 * again, uploads it, and the move completes — it is not left in source-quiescing until it times out.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../dev-env/process-harness.ts';
import { holdAt, isHolding } from '../../dev-env/step-holds.ts';
import { twoDevicesForSuite } from '../../dev-env/two-devices-suite.ts';
import { backendBlobFiles, deviceId, startDemoSession, waitEligible, waitSession } from '../../dev-env/two-devices.ts';

// Every checkpoint is uploaded first (none travels in its transition), so there is an upload to collect.
const twoDevices = twoDevicesForSuite({ env: { BATON_DEMO_TURN_MS: '20', BATON_INLINE_CHECKPOINT_BYTES: '0' } });

describe('an upload collected before its transition named it', () => {
  it('is uploaded again, and the move completes', async () => {
    const world = twoDevices();
    const { laptop, desktop } = world;
    const sessionId = (await startDemoSession(laptop, world.repo)).id;
    await waitEligible(laptop, sessionId, 'desktop');
    const before = new Set(backendBlobFiles(world.backendData));

    // The relinquish is held once its checkpoint is uploaded: in one commit with the quiescing, or after it.
    const points = [
      'sending-source-quiescing+source-relinquished-and-checkpointed',
      'sending-source-relinquished-and-checkpointed',
    ] as const;
    const releases = points.map((point) => holdAt(laptop, point));
    const moved = await laptop.client.call('startMove', { sessionId, targetDeviceId: await deviceId(desktop) });
    if (!moved.ok) throw new Error(JSON.stringify(moved));
    const handoffId = moved.value.handoffId;
    await waitFor('the relinquish held', async () => (points.some((p) => isHolding(laptop, p, handoffId)) ? true : undefined));

    // Collected as the collector does it: the records of the unnamed uploads, then their bodies.
    const uploaded = backendBlobFiles(world.backendData).filter((path) => !before.has(path));
    expect(uploaded.length).toBeGreaterThan(0);
    const db = new Database(join(world.backendData, 'baton.sqlite'));
    const drop = db.prepare('DELETE FROM blobs WHERE digest = ? AND named = 0');
    for (const path of uploaded) expect(drop.run(basename(path)).changes).toBe(1);
    db.close();
    for (const path of uploaded) rmSync(path);
    for (const release of releases) release();

    const after = await waitSession(desktop, sessionId, 'the move', (d) => d.isOwner && d.lastHandoff?.id === handoffId, 90_000);
    expect(after.lastHandoff?.state).toBe('completed');
    expect(laptop.process.stderr()).toContain(`checkpoint of ${handoffId}: the backend no longer holds its upload; taking it again`);
  }, 120_000);
});
