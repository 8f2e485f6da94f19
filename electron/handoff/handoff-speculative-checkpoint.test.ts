/**
 * Integration: a small checkpoint taken ahead while the target prepares (speculative-checkpoint.ts), with
 * real backend and device processes. Unchanged once input is refused, it is the move's checkpoint:
 * nothing is sealed again, and it travels in the relinquish itself (no upload of its own). A message sent while the target prepares changes it: the
 * checkpoint is taken anew, and the target has the message and its reply.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../dev-env/process-harness.ts';
import { twoDevicesForSuite } from '../../dev-env/two-devices-suite.ts';
import { backendBlobFiles, deviceId, startDemoSession, waitEligible, waitSession } from '../../dev-env/two-devices.ts';
import { hasPassed, holdAt } from '../../dev-env/step-holds.ts';

const twoDevices = twoDevicesForSuite({ env: { BATON_DEMO_TURN_MS: '20' } });

describe('a checkpoint taken ahead', () => {
  let sessionId = '';

  it('is the move’s checkpoint when nothing changed: it travels in the relinquish, one body stored, and the source says so', async () => {
    const world = twoDevices();
    const { laptop, desktop } = world;
    sessionId = (await startDemoSession(laptop, world.repo)).id;
    await waitEligible(laptop, sessionId, 'desktop');
    const before = backendBlobFiles(world.backendData).length;

    // The target prepares once the checkpoint is sealed ahead: the path an idle session takes when sealing wins its race.
    const release = holdAt(desktop, 'target-step-at-requested');
    const moved = await laptop.client.call('startMove', { sessionId, targetDeviceId: await deviceId(desktop) });
    if (!moved.ok) throw new Error(JSON.stringify(moved));
    await waitFor('the checkpoint sealed ahead', async () =>
      hasPassed(laptop, 'speculative-checkpoint-sealed', moved.value.handoffId) ? true : undefined,
    );
    release();
    await waitSession(desktop, sessionId, 'the move', (d) => d.isOwner && d.lastHandoff?.state === 'completed');

    expect(laptop.process.stderr()).toMatch(
      new RegExp(
        `checkpoint of ${moved.value.handoffId}: \\d+ bytes, taken ahead while the target prepared and unchanged since, sent in its transition`,
      ),
    );
    expect(backendBlobFiles(world.backendData)).toHaveLength(before + 1);
  }, 60_000);

  it('is taken anew when a message comes while the target prepares: the target has the message and its reply', async () => {
    const world = twoDevices();
    const { laptop, desktop } = world;
    await waitEligible(desktop, sessionId, 'laptop');
    const before = backendBlobFiles(world.backendData).length;
    const release = holdAt(laptop, 'target-step-at-requested');
    const moved = await desktop.client.call('startMove', { sessionId, targetDeviceId: await deviceId(laptop) });
    if (!moved.ok) throw new Error(JSON.stringify(moved));
    const handoffId = moved.value.handoffId;
    // Sealed ahead while the target is held before it prepares; the session still takes input.
    await waitFor('the checkpoint sealed ahead', async () =>
      desktop.process.stderr().includes(`checkpoint of ${handoffId}: `) ? true : undefined,
    );
    expect(await desktop.client.call('sendMessage', { sessionId, text: 'One more thing before it moves' })).toEqual({ ok: true });
    await waitSession(desktop, sessionId, 'the reply', (d) =>
      d.transcript.some((e) => e.role === 'assistant' && e.text.includes('One more thing before it moves')),
    );
    release();

    const after = await waitSession(
      laptop,
      sessionId,
      'the move back',
      (d) => d.isOwner && d.lastHandoff?.id === handoffId && d.lastHandoff.state === 'completed',
    );
    expect(after.transcript.some((e) => e.role === 'user' && e.text === 'One more thing before it moves')).toBe(true);
    expect(after.transcript.some((e) => e.role === 'assistant' && e.text.includes('One more thing before it moves'))).toBe(true);
    const log = desktop.process.stderr();
    expect(log).toMatch(new RegExp(`checkpoint of ${handoffId}: \\d+ bytes built and sealed`));
    expect(log).not.toMatch(new RegExp(`checkpoint of ${handoffId}: \\d+ bytes, taken ahead`));
    // The one the move took: the one sealed ahead was surely stale (the transcript grew), so it was never sent.
    expect(backendBlobFiles(world.backendData)).toHaveLength(before + 1);
  }, 60_000);
});
