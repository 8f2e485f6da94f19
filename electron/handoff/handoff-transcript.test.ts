/**
 * Integration: a long session (over 500 transcript entries) with Baton's own notes moves from the
 * laptop to the desktop and back. Every entry either device had before each move is on the
 * target after it, in the same order: nothing older than a tail is dropped, and the notes stay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../shared/agents.ts';
import {
  deviceId,
  fullTranscript,
  startDemoSession,
  startTwoDevices,
  waitEligible,
  waitSession,
  type DeviceHandle,
  type TwoDevices,
} from '../../dev-env/two-devices.ts';

/** Real processes on a busy 2-core machine, and a few hundred turns: give the test room. */
const TEST_TIMEOUT_MS = 240_000;
const TURNS = 260;
/** The note a restarted device adds, naming itself (every device of the account reads it). */
const RESTART_NOTE = /^(laptop|desktop) restarted; the session resumed/;

let world: TwoDevices;

beforeAll(async () => {
  world = await startTwoDevices({ env: { BATON_DEMO_TURN_MS: '5', BATON_PREPARE_TIMEOUT_MS: '30000' } });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

/** Restarts a device on its profile; the runtime resumes what it owns and notes it in the transcript. */
async function restart(which: 'laptop' | 'desktop'): Promise<DeviceHandle> {
  const old = world[which];
  await old.process.stop();
  const handle = await world.startDevice({ name: old.name, profile: old.profile, workspaceRoot: old.workspaceRoot, env: old.env });
  world[which] = handle;
  return handle;
}

/** Fails unless `expected` appears in `actual` in the same order (other entries may sit between). */
function expectInOrder(actual: TranscriptEntry[], expected: TranscriptEntry[], what: string): void {
  const positions = new Map(actual.map((entry, i) => [entry.id, i]));
  const missing = expected.filter((entry) => !positions.has(entry.id));
  expect(
    missing.map((e) => e.text.slice(0, 60)),
    `${what}: entries lost`,
  ).toEqual([]);
  const order = expected.map((entry) => positions.get(entry.id)!);
  expect(
    order.every((position, i) => i === 0 || position > order[i - 1]!),
    `${what}: entries out of order`,
  ).toBe(true);
}

async function move(from: DeviceHandle, to: DeviceHandle, sessionId: string, generation: number) {
  await waitEligible(from, sessionId, to.name);
  const moved = await from.client.call('startMove', { sessionId, targetDeviceId: await deviceId(to) });
  if (!moved.ok) throw new Error(`move refused: ${moved.code} ${moved.message}`);
  return waitSession(
    to,
    sessionId,
    `the move to ${to.name} to complete`,
    (d) => d.isOwner && d.generation === generation && d.lastHandoff?.state === 'completed' && d.inputBlock === null,
    60_000,
  );
}

describe('a long session with Baton notes, moved there and back', () => {
  it(
    'keeps every entry either device had, in order, after each move',
    async () => {
      const session = await startDemoSession(world.laptop, world.repo, 'Turn 1 of a long session');
      for (let turn = 2; turn <= TURNS; turn++) {
        expect(await world.laptop.client.call('sendMessage', { sessionId: session.id, text: `Turn ${turn} of a long session` })).toEqual({
          ok: true,
        });
      }
      await waitSession(
        world.laptop,
        session.id,
        'every turn to be answered',
        (d) => d.transcript.some((e) => e.role === 'assistant' && e.text.includes(`Turn ${TURNS} of a long session`)),
        120_000,
      );
      // A Baton note, in the laptop's transcript only.
      const laptop = await restart('laptop');
      await waitSession(laptop, session.id, 'the restart note', (d) => d.transcript.some((e) => RESTART_NOTE.test(e.text)));
      // The run view gets the newest window; the whole transcript is read page by page.
      const laptopBefore = await fullTranscript(laptop, session.id);
      expect(laptopBefore.length).toBeGreaterThan(2 * TURNS);

      const onDesktop = await move(laptop, world.desktop, session.id, 2);
      expect(onDesktop).toMatchObject({ transcriptTotal: expect.any(Number), transcriptFrom: onDesktop.transcriptTotal - 200 });
      expectInOrder(await fullTranscript(world.desktop, session.id), laptopBefore, 'the desktop after the first move');

      // A note of the desktop's own and a turn there, then back to the laptop.
      const desktop = await restart('desktop');
      await waitSession(
        desktop,
        session.id,
        'the desktop restart note',
        (d) => d.transcript.filter((e) => RESTART_NOTE.test(e.text)).length === 2,
      );
      expect(await desktop.client.call('sendMessage', { sessionId: session.id, text: 'One more on the desktop' })).toEqual({ ok: true });
      await waitSession(desktop, session.id, 'the desktop turn', (d) =>
        d.transcript.some((e) => e.role === 'assistant' && e.text.includes('One more on the desktop')),
      );
      const desktopBefore = await fullTranscript(desktop, session.id);

      await move(desktop, world.laptop, session.id, 3);
      const back = await fullTranscript(world.laptop, session.id);
      expectInOrder(back, desktopBefore, 'the laptop after the second move');
      expectInOrder(back, laptopBefore, 'the laptop after both moves');
      expect(back.filter((e) => RESTART_NOTE.test(e.text))).toHaveLength(2);
      expect(new Set(back.map((e) => e.id)).size).toBe(back.length);
    },
    TEST_TIMEOUT_MS,
  );
});
