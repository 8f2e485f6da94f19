/**
 * Integration: a move's long steps report how far they got, with real backend and device processes.
 * The source reports the checkpoint's upload, the target its download and the import, in bytes and
 * percent through the handoffProgress event, each ending at 100 %, and both device logs (stderr) show them.
 */
import { describe, expect, it } from 'vitest';
import type { HandoffProgressView } from '../../shared/device-api.ts';
import { deviceId, startDemoSession, waitEligible, waitSession } from '../../dev-env/two-devices.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { twoDevicesForSuite } from '../../dev-env/two-devices-suite.ts';

const twoDevices = twoDevicesForSuite({ env: { BATON_DEMO_TURN_MS: '20' } });

describe('progress of a move', () => {
  it('reports upload on the source, download and import on the target, in the events and the logs', async () => {
    const world = twoDevices();
    const { laptop, desktop } = world;
    const session = await startDemoSession(laptop, world.repo);
    await waitEligible(laptop, session.id, 'desktop');
    const heard: Record<'laptop' | 'desktop', HandoffProgressView[]> = { laptop: [], desktop: [] };
    laptop.client.on('handoffProgress', (p: HandoffProgressView) => heard.laptop.push(p));
    desktop.client.on('handoffProgress', (p: HandoffProgressView) => heard.desktop.push(p));

    const moved = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: await deviceId(desktop) });
    if (!moved.ok) throw new Error(JSON.stringify(moved));
    const handoffId = moved.value.handoffId;
    await waitSession(desktop, session.id, 'the move to complete', (d) => d.isOwner && d.lastHandoff?.state === 'completed');

    const upload = heard.laptop.filter((p) => p.handoffId === handoffId && p.step === 'upload');
    const size = upload.at(-1)?.totalBytes ?? 0;
    expect(size).toBeGreaterThan(0);
    expect(upload[0]).toMatchObject({ label: 'checkpoint', doneBytes: 0, totalBytes: size, percent: 0 });
    expect(upload.at(-1)).toMatchObject({ doneBytes: size, percent: 100 });

    const download = heard.desktop.filter((p) => p.handoffId === handoffId && p.step === 'download');
    expect(download[0]).toMatchObject({ label: 'checkpoint', doneBytes: 0, totalBytes: size });
    expect(download.at(-1)).toMatchObject({ doneBytes: size, totalBytes: size, percent: 100 });
    const imports = heard.desktop.filter((p) => p.handoffId === handoffId && p.step === 'import');
    expect(imports.map((p) => [p.label, p.percent])).toEqual([
      ['transcript', 0],
      ['transcript', 100],
      ['Demo agent session', 0],
      ['Demo agent session', 100],
    ]);

    await waitFor('both logs to show the transfer', async () =>
      laptop.process.stderr().includes(`handoff ${handoffId}: upload checkpoint:`) &&
      desktop.process.stderr().includes(`handoff ${handoffId}: download checkpoint:`) &&
      desktop.process.stderr().includes(`handoff ${handoffId}: import transcript`)
        ? true
        : undefined,
    );
    expect(desktop.process.stderr()).toMatch(new RegExp(`handoff ${handoffId}: download checkpoint: .* \\(100%\\)`));
  }, 60_000);
});
