/**
 * Integration: both devices use two addresses of one backend (relays in front of one real backend
 * process, standing in for two instances on one database until the PostgreSQL store lands). The
 * address they are on goes down in the middle of a move — every open connection cut, new ones
 * refused, as when that instance is SIGKILLed — and the move still ends completed or cancelled with
 * one owner both devices agree on: they fail over to the other address and catch up there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneOwner, sessionOnLaptop, startMove, stateOf } from '../../dev-env/move-checks.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { startTcpRelay, type TcpRelay } from '../../dev-env/tcp-relay.ts';
import { deviceId, startTwoDevices, type TwoDevices } from '../../dev-env/two-devices.ts';
import { holdAt } from '../../dev-env/step-holds.ts';

const TEST_TIMEOUT_MS = 120_000;

let world: TwoDevices;
let desktopId: string;
const relays: TcpRelay[] = [];

beforeAll(async () => {
  world = await startTwoDevices({
    prefix: 'baton-failover-move-',
    env: { BATON_PREPARE_TIMEOUT_MS: '20000' },
    laptopEnv: { BATON_DEMO_TURN_MS: '2000' },
    backendAddresses: async (url) => {
      relays.push(await startTcpRelay(url), await startTcpRelay(url));
      return relays.map((relay) => relay.url);
    },
  });
  desktopId = await deviceId(world.desktop);
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
  await Promise.all(relays.map((relay) => relay.down()));
});

/** The relay both devices are on now, once both say they reach the backend through the same one. */
async function addressInUse(): Promise<TcpRelay> {
  const url = await waitFor('both devices to be on one address', async () => {
    const [laptop, desktop] = await Promise.all([world.laptop, world.desktop].map((d) => d.client.call('getStatus', {})));
    const here = laptop?.reachability?.current;
    return here && here === desktop?.reachability?.current ? here : undefined;
  });
  return relays.find((relay) => relay.url === url)!;
}

/** Brings every relay back up, so the next test starts with two working addresses. */
async function bothUp(): Promise<void> {
  await Promise.all(relays.map((relay) => relay.up()));
}

describe('a move survives the loss of the backend address the devices use', () => {
  it(
    'lost while the target prepares: both devices fail over and the move completes',
    async () => {
      await bothUp();
      const sessionId = await sessionOnLaptop(world);
      const inUse = await addressInUse();
      const release = holdAt(world.desktop, 'target-step-at-requested');
      const handoffId = await startMove(world, sessionId, desktopId);
      await inUse.down();
      release();
      const { desktop } = await expectOneOwner(world, sessionId, handoffId);
      expect(desktop.lastHandoff?.state).toBe('completed');
      const other = relays.find((relay) => relay !== inUse)!;
      const status = await world.desktop.client.call('getStatus', {});
      expect(status.reachability).toMatchObject({ state: 'reachable', current: other.url });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'lost while the source quiesces: the source checkpoints through the other address and the move completes',
    async () => {
      await bothUp();
      const sessionId = await sessionOnLaptop(world);
      expect(await world.laptop.client.call('sendMessage', { sessionId, text: 'keep working' })).toEqual({ ok: true });
      const inUse = await addressInUse();
      const handoffId = await startMove(world, sessionId, desktopId);
      await waitFor(
        'source-quiescing',
        async () => ((await stateOf(world.laptop, sessionId)) === 'source-quiescing' ? true : undefined),
        20_000,
        50,
      );
      await inUse.down();
      const { laptop } = await expectOneOwner(world, sessionId, handoffId);
      expect(laptop.lastHandoff?.state).toBe('completed');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'lost while the target activates: the target completes through the other address and owns the session',
    async () => {
      await bothUp();
      const sessionId = await sessionOnLaptop(world);
      const inUse = await addressInUse();
      const release = holdAt(world.desktop, 'target-step-at-target-activating');
      const handoffId = await startMove(world, sessionId, desktopId);
      await waitFor(
        'target-activating',
        async () => ((await stateOf(world.desktop, sessionId)) === 'target-activating' ? true : undefined),
        20_000,
        50,
      );
      await inUse.down();
      release();
      const { desktop } = await expectOneOwner(world, sessionId, handoffId);
      expect(desktop.lastHandoff?.state).toBe('completed');
      expect(desktop.inputBlock).toBeNull();
    },
    TEST_TIMEOUT_MS,
  );
});
