/**
 * Integration: moves that must not happen, or must stop before the transfer — a blocked readiness
 * report, a cancel while the target prepares, and the agent dirtying the tree while the source
 * quiesces. Real backend and device processes, real git; one world for the file.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionView } from '../../shared/device-api.ts';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { hasPassed, holdAt } from '../../dev-env/step-holds.ts';

/** Real processes on a busy 2-core machine: give each test room beyond the default. */
const TEST_TIMEOUT_MS = 120_000;

/** Stored checkpoint bodies (files named by their SHA-256) under the backend's data folder. */
function blobFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => /(^|\/)[0-9a-f]{64}$/.test(name));
}

let world: TwoDevices;
let session: SessionView;
let desktopId: string;

beforeAll(async () => {
  world = await startTwoDevices({
    env: { BATON_PREPARE_TIMEOUT_MS: '15000' },
    laptopEnv: { BATON_DEMO_TURN_MS: '4000', BATON_TURN_WAIT_MS: '10000', BATON_PREPARE_TIMEOUT_MS: '6000' },
  });
  session = await startDemoSession(world.laptop, world.repo);
  desktopId = await deviceId(world.desktop);
  await waitEligible(world.laptop, session.id, 'desktop');
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

/** The laptop's view of the session once the handoff `handoffId` is cancelled (`what`: what is awaited). */
function cancelledOnLaptop(handoffId: string, what: string) {
  return waitSession(world.laptop, session.id, what, (d) => d.lastHandoff?.id === handoffId && d.lastHandoff.state === 'cancelled', 20_000);
}

describe('moves that stop before ownership moves', () => {
  it(
    'refuses a Move from a dirty tree with the fix, and makes no handoff record',
    async () => {
      world.sandbox.writeFile(world.repo, 'scratch.txt', 'not committed\n');
      const result = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      expect(result.ok).toBe(false);
      if (result.ok || !('report' in result)) throw new Error('expected a blocked report');
      const dirty = result.report.blockers.find((b) => b.code === 'dirty_tree');
      expect(dirty?.fix).toMatch(/commit/i);
      expect(JSON.stringify(dirty?.details)).toContain('scratch.txt');
      expect(await world.laptop.client.call('handoffHistory', { sessionId: session.id })).toEqual([]);
      // The blocked move is the session's: the laptop keeps it, the desktop reads it from the sealed events.
      for (const device of [world.laptop, world.desktop]) {
        const seen = await waitSession(device, session.id, `${device.name} to show the blocked move`, (d) => d.blocked !== null);
        expect(seen.blocked).toMatchObject({ targetDeviceId: desktopId, targetName: 'desktop', foundBy: 'readiness', handoffId: null });
        expect(seen.blocked?.blockers.map((b) => b.code)).toContain('dirty_tree');
      }
      rmSync(join(world.repo, 'scratch.txt'));
      // A re-check that passes clears it, everywhere (asked without a target: the blocked move's own is used).
      expect(await world.laptop.client.call('checkReadiness', { sessionId: session.id })).toMatchObject({ ready: true, blockers: [] });
      for (const device of [world.laptop, world.desktop])
        await waitSession(device, session.id, `${device.name} to clear the blocked move`, (d) => d.blocked === null);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'cancels while the target is preparing: the source keeps the session at generation 1',
    async () => {
      const release = holdAt(world.desktop, 'target-step-at-requested');
      const moved = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      expect(moved.ok).toBe(true);
      const handoffId = moved.ok ? moved.value.handoffId : '';
      expect(await world.laptop.client.call('cancelMove', { sessionId: session.id })).toEqual({ ok: true });
      // The target's held prepare runs after the cancel and must not move it on: once the target has
      // come to the cancelled record, whatever its prepare did is done.
      release();
      await waitFor('the target to step the cancelled move', async () =>
        hasPassed(world.desktop, 'target-step-at-cancelled', handoffId) ? true : undefined,
      );
      const detail = await waitSession(world.laptop, session.id, 'the cancelled move', (d) => d.lastHandoff?.state === 'cancelled');
      expect(detail.lastHandoff?.history.map((h) => h.state)).toEqual(['requested', 'cancelled']);
      expect(detail.lastHandoff?.cancelReason?.code).toBe('user_cancelled');
      expect(detail).toMatchObject({ isOwner: true, generation: 1, condition: 'owned', inputBlock: null });
      const onDesktop = await world.desktop.client.call('getSession', { sessionId: session.id });
      expect(onDesktop?.isOwner).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'cancels at the checkpoint re-check when the agent dirties the tree while quiescing; the source takes input again',
    async () => {
      expect(await world.laptop.client.call('sendMessage', { sessionId: session.id, text: 'Please edit a file' })).toEqual({ ok: true });
      const moved = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      expect(moved.ok).toBe(true);
      const handoffId = moved.ok ? moved.value.handoffId : '';
      const detail = await waitSession(
        world.laptop,
        session.id,
        'the re-check to cancel the move',
        (d) => d.lastHandoff?.id === handoffId && d.lastHandoff.state === 'cancelled' && d.inputBlock === null,
      );
      const handoff = detail.lastHandoff!;
      expect(handoff.history.map((h) => h.state)).toEqual(['requested', 'target-prepared', 'source-quiescing', 'cancelled']);
      expect(handoff.cancelReason?.code).toBe('dirty_tree');
      expect(handoff.blockers.map((b) => b.code)).toContain('dirty_tree');
      expect(detail).toMatchObject({ isOwner: true, generation: 1, condition: 'owned' });
      expect(await world.laptop.client.call('sendMessage', { sessionId: session.id, text: 'Still here?' })).toEqual({ ok: true });

      // The remediation acts bring the tree back to ready.
      const committed = await world.laptop.client.call('commitAll', {
        sessionId: session.id,
        repo: world.repo,
        message: 'Keep the demo notes',
      });
      expect(committed.result).toEqual({ ok: true });
      const pushed = await world.laptop.client.call('pushRepo', { sessionId: session.id, repo: world.repo });
      expect(pushed.result).toEqual({ ok: true });
      expect(pushed.report.ready).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'cancels while the source quiesces: no checkpoint is uploaded and the source takes input again',
    async () => {
      expect(await world.laptop.client.call('sendMessage', { sessionId: session.id, text: 'Think for a while' })).toEqual({ ok: true });
      const moved = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      expect(moved.ok).toBe(true);
      await waitSession(world.laptop, session.id, 'source-quiescing', (d) => d.activeHandoff?.state === 'source-quiescing', 20_000);
      expect(await world.laptop.client.call('cancelMove', { sessionId: session.id })).toEqual({ ok: true });
      const detail = await waitSession(
        world.laptop,
        session.id,
        'the quiescing source to take input again',
        (d) => d.lastHandoff?.state === 'cancelled' && d.inputBlock === null,
      );
      expect(detail.lastHandoff?.history.map((h) => h.state)).toEqual(['requested', 'target-prepared', 'source-quiescing', 'cancelled']);
      expect(detail).toMatchObject({ isOwner: true, generation: 1 });
      // Let the turn finish: the cancelled move must not have produced a checkpoint.
      await waitSession(world.laptop, session.id, 'the turn to end', (d) =>
        d.transcript.some((e) => e.role === 'assistant' && e.text.includes('Think for a while')),
      );
      expect(blobFiles(world.backendData)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'cancels as target_timeout when the target never prepares, and the source keeps the session',
    async () => {
      // Online but never preparing (held before its step) until the file's end.
      holdAt(world.desktop, 'target-step-at-requested');
      const moved = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      expect(moved.ok).toBe(true);
      const handoffId = moved.ok ? moved.value.handoffId : '';
      const detail = await cancelledOnLaptop(handoffId, 'the prepare deadline to cancel the move');
      expect(detail.lastHandoff?.history.map((h) => h.state)).toEqual(['requested', 'cancelled']);
      expect(detail.lastHandoff?.cancelReason).toEqual({ code: 'target_timeout', message: 'The target did not prepare within 6 s.' });
      expect(detail).toMatchObject({ isOwner: true, generation: 1, condition: 'owned', inputBlock: null });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'says the backend may be the cause when it stopped answering too while the target did not prepare',
    async () => {
      const moved = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      expect(moved.ok).toBe(true);
      const handoffId = moved.ok ? moved.value.handoffId : '';
      // Stopped, the backend still takes connections: the laptop's heartbeat waits on it past the 6 s deadline.
      world.backend.child.kill('SIGSTOP');
      try {
        await new Promise((resolve) => setTimeout(resolve, 7_500));
      } finally {
        world.backend.child.kill('SIGCONT');
      }
      const detail = await cancelledOnLaptop(handoffId, 'the prepare deadline to cancel the move once the backend runs again');
      expect(detail.lastHandoff?.cancelReason?.code).toBe('target_timeout');
      expect(detail.lastHandoff?.cancelReason?.message).toMatch(
        /^The target did not prepare within 6 s\. The sync backend has not answered a call of this device for \d+ s either/,
      );
      expect(detail).toMatchObject({ isOwner: true, generation: 1, condition: 'owned', inputBlock: null });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'does not offer a target that was shut down, from the moment it stopped, and says since when',
    async () => {
      await waitEligible(world.laptop, session.id, 'desktop');
      const stoppedAt = Date.now();
      await world.desktop.process.stop();
      const [desktop] = await world.laptop.client.call('moveEligibility', { sessionId: session.id });
      expect(desktop).toMatchObject({
        name: 'desktop',
        eligible: false,
        reason: { code: 'target_offline', message: 'Baton on desktop was stopped.' },
      });
      expect(desktop!.since).toBeGreaterThanOrEqual(stoppedAt - 1000);
      const listed = await world.laptop.client.call('listDevices', {});
      expect(listed.find((d) => d.name === 'desktop')).toMatchObject({ online: false, presence: 'offline' });
    },
    TEST_TIMEOUT_MS,
  );
});
