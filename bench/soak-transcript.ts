/**
 * bench:soak's long transcript (soak.ts): two worlds side by side, each a backend and two shipped
 * devices with one demo-agent session, whose transcript holds LONG_ENTRIES entries in one and
 * SHORT_ENTRIES in the other (written into the laptop's log while it is stopped, through the
 * device's own local state). Their start, moves and the run view's reads alternate, so both see the
 * same load: each figure of the long one is read against the short one's of the same rounds.
 */
import { LocalState } from '../electron/local-state/local-state.ts';
import type { TranscriptEntry } from '../shared/agents.ts';
import { TRANSCRIPT_WINDOW } from '../shared/device-api.ts';
import {
  deviceId,
  startDemoSession,
  startTwoDevices,
  waitEligible,
  waitSession,
  type DeviceHandle,
  type TwoDevices,
} from '../dev-env/two-devices.ts';
import { median } from './median.ts';
import { moveAndWait, timed } from './soak-moves.ts';

/** One world and its session. */
interface Case {
  entries: number;
  world: TwoDevices;
  sessionId: string;
  start: number[];
  move: number[];
  render: number[];
}

/** `count` entries as a long conversation has them: a user line, then the agent's answer. */
function entries(sessionId: string, count: number): TranscriptEntry[] {
  const at = Date.now() - count * 1000;
  return Array.from({ length: count }, (_, i) => ({
    id: `seed-${sessionId}-${i}`,
    at: at + i * 1000,
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    agentId: 'main',
    text:
      i % 2 === 0
        ? `Please look at step ${i} of the parser change and tell me what is left.`
        : `Step ${i}: the parser now splits on commas and quotes; the tests for empty fields pass. Left: escaped quotes and a test for them.`,
  }));
}

/** Stops `device`, runs `work` on its profile, and starts it again; resolves with the start's milliseconds (until the UI answers). */
async function restart(world: TwoDevices, name: 'laptop' | 'desktop', work: () => Promise<void> = async () => undefined): Promise<number> {
  const device = world[name];
  device.client.close();
  await device.process.stop(10_000);
  await work();
  const started = performance.now();
  world[name] = await world.startDevice(device);
  return performance.now() - started;
}

/** Moves the session from `source` to `target` and resolves with the milliseconds until the target says completed. */
async function move(source: DeviceHandle, target: DeviceHandle, sessionId: string): Promise<number> {
  await waitSession(source, sessionId, 'the session to be owned here', (d) => d.isOwner && d.inputBlock === null);
  await waitEligible(source, sessionId, target.name);
  const targetId = await deviceId(target);
  const { ms, end } = await moveAndWait(source, target, sessionId, targetId, 0);
  if (end.state !== 'completed') throw new Error(`the move ended ${end.state}: ${end.cancelReason?.code}`);
  return ms;
}

/** What the run view reads as it opens the session: the list, its detail (the newest window) and its history. */
async function render(device: DeviceHandle, sessionId: string): Promise<number> {
  return timed(async () => {
    const [, detail] = await Promise.all([
      device.client.call('listSessions', {}),
      device.client.call('getSession', { sessionId }),
      device.client.call('handoffHistory', { sessionId }),
    ]);
    if (!detail || detail.transcript.length > TRANSCRIPT_WINDOW) throw new Error('the detail carries more than its window');
  });
}

/** One world with a session whose transcript holds `count` entries, on the laptop, moved once to clone its repository on the desktop. */
async function makeCase(count: number): Promise<Case> {
  const world = await startTwoDevices({ prefix: 'baton-soak-long-', env: { BATON_DEMO_TURN_MS: '20' }, shipped: true });
  const session = await startDemoSession(world.laptop, world.repo);
  const seeded = Math.max(0, count - (await world.laptop.client.call('getSession', { sessionId: session.id }))!.transcriptTotal);
  await restart(world, 'laptop', async () => {
    const state = new LocalState(world.laptop.profile);
    const all = entries(session.id, seeded);
    for (let i = 0; i < all.length; i += 1000) state.appendTranscript(session.id, all.slice(i, i + 1000));
    await state.close();
  });
  // The first move clones the repository on the desktop (not timed), and the one back leaves it on the laptop.
  await move(world.laptop, world.desktop, session.id);
  await move(world.desktop, world.laptop, session.id);
  return { entries: count, world, sessionId: session.id, start: [], move: [], render: [] };
}

/** The long and short cases' figures, each the median of `rounds` alternated rounds. */
export async function longTranscript(
  long: number,
  short: number,
  rounds: number,
): Promise<{ cases: Case[]; ratios: Record<string, number> }> {
  const cases: Case[] = [];
  try {
    cases.push(await makeCase(short), await makeCase(long));
    for (let round = 0; round < rounds; round++) {
      for (const c of cases) {
        c.start.push(await restart(c.world, 'laptop'));
        c.render.push(await render(c.world.laptop, c.sessionId));
      }
      for (const c of cases) c.move.push(await move(c.world.laptop, c.world.desktop, c.sessionId));
      for (const c of cases) c.move.push(await move(c.world.desktop, c.world.laptop, c.sessionId));
    }
    const [s, l] = cases as [Case, Case];
    const ratio = (pick: (c: Case) => number[]) => median(pick(l)) / median(pick(s));
    return { cases, ratios: { start: ratio((c) => c.start), move: ratio((c) => c.move), render: ratio((c) => c.render) } };
  } finally {
    await Promise.all(cases.map((c) => c.world.cleanup()));
  }
}
