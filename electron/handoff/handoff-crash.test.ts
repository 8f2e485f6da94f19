/**
 * Integration: SIGKILL of the source after source-quiescing, of the target during
 * target-activating, and of the backend mid-handoff, each followed by a restart. Every handoff
 * must end completed or cancelled, with exactly one owner that both devices agree on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectOneOwner as checkOneOwner,
  sessionOnLaptop as laptopSession,
  startMove as moveTo,
  stateOf,
} from '../../dev-env/move-checks.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { deviceId, startTwoDevices, type DeviceHandle, type TwoDevices } from '../../dev-env/two-devices.ts';
import { holdAt } from '../../dev-env/step-holds.ts';

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

const expectOneOwner = (sessionId: string, handoffId: string) => checkOneOwner(world, sessionId, handoffId);
const sessionOnLaptop = () => laptopSession(world);
const startMove = (sessionId: string) => moveTo(world, sessionId, desktopId);

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
      const release = holdAt(world.desktop, 'target-step-at-target-activating');
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
      const release = holdAt(world.desktop, 'target-step-at-requested');
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
      const release = holdAt(world.desktop, 'target-step-at-target-activating');
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
