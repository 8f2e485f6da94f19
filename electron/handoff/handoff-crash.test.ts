/**
 * Integration: SIGKILL of the source after source-quiescing, of the target during
 * target-activating, and of the backend mid-handoff, each followed by a restart. Every handoff
 * must end completed or cancelled, with exactly one owner that both devices agree on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDetail } from '../../shared/device-api.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import {
  deviceId,
  holdTarget,
  startDemoSession,
  startTwoDevices,
  waitEligible,
  waitSession,
  type DeviceHandle,
  type TwoDevices,
} from '../../dev-env/two-devices.ts';

/** Real processes on a busy 2-core machine: give each test room beyond the default. */
const TEST_TIMEOUT_MS = 120_000;

let world: TwoDevices;
let desktopId: string;

beforeAll(async () => {
  world = await startTwoDevices({
    env: { BATON_PREPARE_TIMEOUT_MS: '20000' },
    laptopEnv: { BATON_DEMO_TURN_MS: '4000', BATON_TURN_WAIT_MS: '10000' },
  });
  desktopId = await deviceId(world.desktop);
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

/** Restarts a killed device on its profile (no enrollment flags: it resumes from its profile). */
async function restart(which: 'laptop' | 'desktop'): Promise<DeviceHandle> {
  const old = world[which];
  const handle = await world.startDevice({ name: old.name, profile: old.profile, workspaceRoot: old.workspaceRoot, env: old.env });
  world[which] = handle;
  return handle;
}

/** Waits for the session's handoff to end, then checks both devices agree on exactly one owner. */
async function expectOneOwner(sessionId: string, handoffId: string): Promise<{ laptop: SessionDetail; desktop: SessionDetail }> {
  const ended = (d: SessionDetail) =>
    d.lastHandoff?.id === handoffId && (d.lastHandoff.state === 'completed' || d.lastHandoff.state === 'cancelled');
  const laptop = await waitSession(world.laptop, sessionId, 'the laptop to see the handoff end', ended, 45_000);
  const desktop = await waitSession(
    world.desktop,
    sessionId,
    'the desktop to see the handoff end',
    (d) => ended(d) && d.generation === laptop.generation,
    45_000,
  );
  expect([laptop.isOwner, desktop.isOwner].filter(Boolean)).toHaveLength(1);
  expect(desktop.ownerDeviceId).toBe(laptop.ownerDeviceId);
  if (laptop.lastHandoff?.state === 'completed') {
    expect(desktop).toMatchObject({ isOwner: true, generation: 2 });
  } else {
    expect(laptop).toMatchObject({ isOwner: true, generation: 1 });
  }
  return { laptop, desktop };
}

/** A fresh session on the laptop, ready to move. */
async function sessionOnLaptop(): Promise<string> {
  const session = await startDemoSession(world.laptop, world.repo);
  await waitEligible(world.laptop, session.id, 'desktop');
  return session.id;
}

async function startMove(sessionId: string): Promise<string> {
  const moved = await world.laptop.client.call('startMove', { sessionId, targetDeviceId: desktopId });
  if (!moved.ok) throw new Error(`move refused: ${JSON.stringify(moved)}`);
  return moved.value.handoffId;
}

const stateOf = async (device: DeviceHandle, sessionId: string) =>
  (await device.client.call('getSession', { sessionId }))?.activeHandoff?.state;

describe('a handoff survives SIGKILL and restart', () => {
  it(
    'source killed after source-quiescing: the restarted source checkpoints and the move completes',
    async () => {
      const sessionId = await sessionOnLaptop();
      expect(await world.laptop.client.call('sendMessage', { sessionId, text: 'keep working' })).toEqual({ ok: true });
      const handoffId = await startMove(sessionId);
      await waitFor(
        'source-quiescing',
        async () => ((await stateOf(world.laptop, sessionId)) === 'source-quiescing' ? true : undefined),
        20_000,
        50,
      );
      await world.laptop.process.kill();
      await restart('laptop');
      const { laptop } = await expectOneOwner(sessionId, handoffId);
      expect(laptop.lastHandoff?.state).toBe('completed');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'target killed during target-activating: the restarted target activates and keeps ownership',
    async () => {
      const sessionId = await sessionOnLaptop();
      const release = holdTarget(world.desktop, 'activate');
      const handoffId = await startMove(sessionId);
      await waitFor(
        'target-activating',
        async () => ((await stateOf(world.desktop, sessionId)) === 'target-activating' ? true : undefined),
        20_000,
        50,
      );
      await world.desktop.process.kill();
      release();
      await restart('desktop');
      const { desktop } = await expectOneOwner(sessionId, handoffId);
      expect(desktop.lastHandoff?.state).toBe('completed');
      expect(desktop.inputBlock).toBeNull();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'backend killed right after the move is requested: after its restart the devices finish the handoff',
    async () => {
      const sessionId = await sessionOnLaptop();
      const release = holdTarget(world.desktop, 'prepare');
      const handoffId = await startMove(sessionId);
      await world.backend.kill();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await world.restartBackend();
      release();
      await expectOneOwner(sessionId, handoffId);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'backend killed while the target activates: after its restart the target completes and owns the session',
    async () => {
      const sessionId = await sessionOnLaptop();
      const release = holdTarget(world.desktop, 'activate');
      const handoffId = await startMove(sessionId);
      await waitFor(
        'target-activating',
        async () => ((await stateOf(world.desktop, sessionId)) === 'target-activating' ? true : undefined),
        20_000,
        50,
      );
      await world.backend.kill();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await world.restartBackend();
      release();
      const { desktop } = await expectOneOwner(sessionId, handoffId);
      expect(desktop.lastHandoff?.state).toBe('completed');
    },
    TEST_TIMEOUT_MS,
  );
});
