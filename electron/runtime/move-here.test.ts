/**
 * Integration: Move here between two real device processes over a real backend and real git. The
 * desktop asks for the laptop's session; the laptop runs readiness and moves it, the record naming
 * the desktop as initiator; a blocked readiness shows on both devices and nothing moves until the
 * laptop's tree is fixed — then the laptop moves it on its own, and the block is in neither view;
 * a button drawn before the session moved acts on nothing; an offline owner is said at once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import type { SessionDetail } from '../../shared/device-api.ts';

const TEST_TIMEOUT_MS = 120_000;

let world: TwoDevices;
let laptopId = '';
let desktopId = '';

beforeAll(async () => {
  world = await startTwoDevices({ prefix: 'baton-move-here', env: { BATON_DEMO_TURN_MS: '200' } });
  [laptopId, desktopId] = [await deviceId(world.laptop), await deviceId(world.desktop)];
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

/** The session runs on the device that shows it, its move completed. */
const done = (d: SessionDetail) => d.isOwner && d.lastHandoff?.state === 'completed';

/** A demo session on the laptop that the desktop knows of and could receive. */
async function laptopSession(): Promise<string> {
  const session = await startDemoSession(world.laptop, world.repo);
  await waitEligible(world.laptop, session.id, 'desktop');
  await waitSession(world.desktop, session.id, 'the desktop to know the session', (d) => d.ownerDeviceId === laptopId);
  return session.id;
}

describe('Move here', () => {
  it('moves the session to the device that asked, the record naming it as initiator', { timeout: TEST_TIMEOUT_MS }, async () => {
    const sessionId = await laptopSession();
    const asked = await world.desktop.client.call('moveHere', { sessionId });
    expect(asked).toEqual({ ok: true, value: undefined });
    const arrived = await waitSession(world.desktop, sessionId, 'the move to complete on the desktop', done, 60_000);
    expect(arrived.generation).toBe(2);
    expect(arrived.lastHandoff).toMatchObject({ state: 'completed', sourceDeviceId: laptopId, targetDeviceId: desktopId });
    expect(arrived.lastHandoff?.initiatorDeviceId).toBe(desktopId);
    const history = await world.laptop.client.call('handoffHistory', { sessionId });
    expect(history.map((h) => [h.state, h.initiatorDeviceId])).toEqual([['completed', desktopId]]);

    // The agent is told it moved, with its first input there (once): from which device to which, and where.
    const reply = async (text: string) => {
      expect(await world.desktop.client.call('sendMessage', { sessionId, text })).toEqual({ ok: true, value: undefined });
      const done = await waitSession(world.desktop, sessionId, 'the reply', (d) => {
        const last = d.transcript.at(-1);
        return last?.role === 'assistant' && last.text.includes(`("${text}")`);
      });
      return done.transcript.at(-1)!.text;
    };
    const first = await reply('carry on');
    expect(first).toContain('Baton told me: "Baton: this session just moved from the device "laptop" to "desktop"');
    expect(first).toContain(`Your workspace is now ${arrived.workspace}`);
    expect(await reply('and then')).not.toContain('Baton told me');
  });

  it(
    'shows a blocked readiness on both devices, moves nothing, and moves on its own once the owner fixed it',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const sessionId = await laptopSession();
      writeFileSync(join(world.repo, 'notes-move-here.txt'), 'not committed yet\n');
      expect(await world.desktop.client.call('moveHere', { sessionId })).toEqual({ ok: true, value: undefined });
      const codes = (d: { blocked: { blockers: { code: string }[] } | null }) => d.blocked?.blockers.map((b) => b.code) ?? [];
      const onDesktop = await waitSession(world.desktop, sessionId, 'the desktop to show the block', (d) =>
        codes(d).includes('dirty_tree'),
      );
      expect(onDesktop.blocked).toMatchObject({ targetDeviceId: desktopId, targetName: 'desktop', foundBy: 'readiness' });
      const onLaptop = await waitSession(world.laptop, sessionId, 'the laptop to show the block', (d) => codes(d).includes('dirty_tree'));
      expect(onLaptop.isOwner).toBe(true);
      // Nothing moved: no handoff of the session exists, and the laptop still owns it at generation 1.
      expect(await world.laptop.client.call('handoffHistory', { sessionId })).toEqual([]);
      expect(onDesktop).toMatchObject({ ownerDeviceId: laptopId, generation: 1, activeHandoff: null });

      expect(onDesktop.blocked).toMatchObject({ sourceDeviceId: laptopId, generation: 1, askedBy: desktopId });

      // The fix runs on the laptop, by the person there; once nothing blocks, the laptop moves it on its own.
      const committed = await world.laptop.client.call('commitAll', { sessionId, repo: world.repo, message: 'Keep the notes' });
      expect(committed.result.ok).toBe(true);
      const pushed = await world.laptop.client.call('pushRepo', { sessionId, repo: world.repo });
      expect(pushed.result.ok).toBe(true);
      const arrived = await waitSession(world.desktop, sessionId, 'the move to complete on the desktop', done, 60_000);
      expect(arrived).toMatchObject({ generation: 2, blocked: null });
      expect(arrived.lastHandoff?.initiatorDeviceId).toBe(desktopId);
      const left = await waitSession(world.laptop, sessionId, 'the laptop to see it moved', (d) => d.generation === 2);
      expect(left.blocked).toBeNull();

      // A Move or a Move here drawn at generation 1 acts on nothing now, and says where the session runs.
      const stale = await world.laptop.client.call('moveHere', { sessionId, generation: 1 });
      expect(stale.ok ? 'asked' : stale.code).toBe('stale_generation');
      expect(stale.ok ? '' : stale.message).toContain('runs on desktop now');
      const wrongWay = await world.desktop.client.call('startMove', { sessionId, targetDeviceId: laptopId, generation: 1 });
      expect(wrongWay.ok ? 'moved' : wrongWay.code).toBe('stale_generation');
      expect(await world.desktop.client.call('handoffHistory', { sessionId })).toHaveLength(1);
    },
  );

  it('says at once that an offline owner cannot move the session here', { timeout: TEST_TIMEOUT_MS }, async () => {
    const sessionId = await laptopSession();
    await world.laptop.process.stop();
    await waitFor(
      'the desktop to see the laptop offline',
      async () => {
        const devices = await world.desktop.client.call('listDevices', {});
        return devices.find((d) => d.id === laptopId)?.online === false ? true : undefined;
      },
      40_000,
      500,
    );
    const started = Date.now();
    const asked = await world.desktop.client.call('moveHere', { sessionId });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(asked.ok ? 'asked' : asked.code).toBe('source_offline');
    expect(asked.ok ? '' : asked.message).toContain('laptop is offline');
  });
});
