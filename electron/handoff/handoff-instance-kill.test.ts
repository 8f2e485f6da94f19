/**
 * Integration: two backend instances on one PostgreSQL database, both devices given both addresses
 * and connected to the first. That instance is SIGKILLed in the middle of a move (the target held
 * before it prepares), and the move still ends completed or cancelled with one owner both devices
 * agree on: they fail over to the other instance, which holds everything the first acknowledged.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectOneOwner, sessionOnLaptop, startMove } from '../../dev-env/move-checks.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { freshDatabase } from '../../dev-env/test-postgres.ts';
import { deviceId, startTwoDevices, type TwoDevices } from '../../dev-env/two-devices.ts';
import { holdAt } from '../../dev-env/step-holds.ts';

let world: TwoDevices;
let desktopId: string;

beforeAll(async () => {
  world = await startTwoDevices({
    prefix: 'baton-instance-kill-',
    database: await freshDatabase('baton_kill'),
    env: { BATON_PREPARE_TIMEOUT_MS: '20000' },
    laptopEnv: { BATON_DEMO_TURN_MS: '2000' },
  });
  desktopId = await deviceId(world.desktop);
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

it('a move whose instance is SIGKILLed while the target prepares ends with one owner, through the other instance', async () => {
  const [first, second] = world.backends;
  const sessionId = await sessionOnLaptop(world);
  await waitFor('both devices on the first instance', async () => {
    const views = await Promise.all([world.laptop, world.desktop].map((d) => d.client.call('getStatus', {})));
    return views.every((v) => v?.reachability?.current === first!.url) ? true : undefined;
  });
  const release = holdAt(world.desktop, 'target-step-at-requested');
  const handoffId = await startMove(world, sessionId, desktopId);
  await first!.kill();
  release();
  const { desktop, laptop } = await expectOneOwner(world, sessionId, handoffId);
  expect(['completed', 'cancelled']).toContain(desktop.lastHandoff?.state);
  expect(laptop.lastHandoff?.state).toBe(desktop.lastHandoff?.state);
  const status = await world.desktop.client.call('getStatus', {});
  expect(status.reachability).toMatchObject({ state: 'reachable', current: second!.url });
}, 120_000);
