/**
 * Integration: Carry my changes between two device processes over real git. The laptop's checkout
 * holds every kind of change and an unpushed commit; a Move that carries them rebuilds exactly that
 * checkout on the desktop (HEAD, index, working tree) before the agent resumes, and the laptop parks
 * its copy in a named stash, clean at the base. Carried back, the laptop ends byte for byte where a
 * direct edit there would have. A dirty desktop checkout blocks the move on the desktop before anything
 * moves, and the laptop's checkout stays exactly as it was.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkoutSnapshot,
  commitUnpushed,
  makeEveryKindOfChange,
  seedCarryRepo,
  statusOf,
  worktreeSnapshot,
} from '../../dev-env/carry-fixtures.ts';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import type { SessionDetail } from '../../shared/device-api.ts';

/** Real processes on a busy 2-core machine: give each test room beyond the default. */
const TEST_TIMEOUT_MS = 150_000;

let world: TwoDevices;
let sessionId = '';
let laptopId = '';
let desktopId = '';
/** The laptop's checkout as the first move found it: what the desktop must rebuild. */
let carriedStatus = '';
let carriedFiles: Record<string, string> = {};
let base = '';
let carriedHead = '';
/** The desktop's checkout of the repository (where the first move put the session). */
let deskCheckout = '';
/** A copy of the laptop's checkout as the first move found it, edited directly where the desktop edits. */
let direct = '';

const IGNORED = ['build/out.js', 'debug.log'];
const withoutIgnored = (files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).filter(([path]) => !IGNORED.includes(path)));

beforeAll(async () => {
  world = await startTwoDevices({ env: { BATON_PREPARE_TIMEOUT_MS: '20000', BATON_DEMO_TURN_MS: '200' } });
  seedCarryRepo(world.sandbox, world.repo);
  base = world.sandbox.head(world.repo);
  const session = await startDemoSession(world.laptop, world.repo);
  sessionId = session.id;
  [laptopId, desktopId] = [await deviceId(world.laptop), await deviceId(world.desktop)];
  await waitEligible(world.laptop, sessionId, 'desktop');
}, 120_000);

afterAll(async () => {
  await world?.cleanup();
});

/** Waits until the move `handoffId` completed on `device` (and, on the source, its copy was parked). */
function completedOn(device: 'laptop' | 'desktop', handoffId: string): Promise<SessionDetail> {
  const source = (d: SessionDetail) => d.lastHandoff?.sourceDeviceId === (device === 'laptop' ? laptopId : desktopId);
  return waitSession(
    world[device],
    sessionId,
    `the move to complete on the ${device}`,
    (d) =>
      d.lastHandoff?.id === handoffId &&
      d.lastHandoff.state === 'completed' &&
      (!source(d) || d.lastHandoff.carried?.parked !== null) &&
      (source(d) || d.inputBlock === null),
    60_000,
  );
}

describe('Carry my changes between two devices', () => {
  it(
    'rebuilds every kind of change and the unpushed commit on the desktop, says so to the agent, and parks the laptop copy clean at the base',
    async () => {
      const { laptop, desktop, sandbox } = world;
      carriedHead = commitUnpushed(sandbox, world.repo);
      makeEveryKindOfChange(sandbox, world.repo);
      carriedStatus = statusOf(sandbox, world.repo);
      carriedFiles = withoutIgnored(worktreeSnapshot(world.repo));
      direct = join(sandbox.root, 'direct-edit');
      execFileSync('cp', ['-a', world.repo, direct]);
      const refused = await laptop.client.call('startMove', { sessionId, targetDeviceId: desktopId });
      expect(refused.ok === false && 'report' in refused && refused.report.carry).toMatchObject({ commits: 1, added: 4, deleted: 2 });
      const moved = await laptop.client.call('startMove', { sessionId, targetDeviceId: desktopId, carry: { confirmedFiles: [] } });
      if (!moved.ok) throw new Error(JSON.stringify(moved));
      const onDesktop = await completedOn('desktop', moved.value.handoffId);
      const checkout = (deskCheckout = onDesktop.workspace);
      expect(sandbox.head(checkout)).toBe(carriedHead);
      expect(statusOf(sandbox, checkout)).toBe(carriedStatus);
      expect(worktreeSnapshot(checkout)).toEqual(carriedFiles);
      expect(onDesktop.lastHandoff?.carried).toMatchObject({ changed: 4, added: 4, deleted: 2, commits: 1, repos: ['.'], parked: null });
      expect(onDesktop.lastHandoff?.carried?.keptAs).toMatch(/^baton: carried to desktop at \d\d:\d\d \(handoff /);
      // The checkpoint's packet recorded the carried files uncommitted: drift on resume says the work arrived so.
      expect(onDesktop.lastHandoff?.driftWarnings).toContainEqual({
        code: 'dirty_tree',
        detail: expect.stringMatching(/ \(the work arrived uncommitted, as the packet recorded it\)$/),
      });

      const onLaptop = await completedOn('laptop', moved.value.handoffId);
      expect(onLaptop.lastHandoff?.carried).toMatchObject({ parked: { ok: true }, keptAs: onDesktop.lastHandoff?.carried?.keptAs });
      // Exactly one live copy: the laptop's checkout is clean at the base, its work in the named stash.
      expect(sandbox.head(world.repo)).toBe(base);
      expect(sandbox.git(world.repo, ['status', '--porcelain'])).toBe('');
      expect(sandbox.git(world.repo, ['stash', 'list', '--format=%gs'])).toContain(onLaptop.lastHandoff!.carried!.keptAs);

      expect(await desktop.client.call('sendMessage', { sessionId, text: 'what came along?' })).toEqual({ ok: true });
      const told = await waitSession(desktop, sessionId, 'the resumed agent to answer', (d) =>
        d.transcript.some((e) => e.role === 'assistant' && e.text.includes('what came along?')),
      );
      expect(told.transcript.map((e) => e.text).join('\n')).toMatch(/The uncommitted changes came along, still uncommitted/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'carried back to the laptop with an edit made on the desktop, ends byte for byte where that edit made on the laptop would have',
    async () => {
      const { desktop, sandbox } = world;
      sandbox.writeFile(deskCheckout, 'src/app.ts', 'export const app = 3; // edited on the desktop\n');
      sandbox.writeFile(deskCheckout, 'notes/from desk.md', 'written on the desktop\n');
      // The same edit, made directly on the copy of the laptop's checkout taken before the first move.
      sandbox.writeFile(direct, 'src/app.ts', 'export const app = 3; // edited on the desktop\n');
      sandbox.writeFile(direct, 'notes/from desk.md', 'written on the desktop\n');
      await waitEligible(desktop, sessionId, 'laptop');
      const moved = await desktop.client.call('startMove', { sessionId, targetDeviceId: laptopId, carry: { confirmedFiles: [] } });
      if (!moved.ok) throw new Error(JSON.stringify(moved));
      const back = await completedOn('laptop', moved.value.handoffId);
      expect(back.workspace).toBe(world.repo);
      expect(sandbox.head(world.repo)).toBe(carriedHead);
      expect(statusOf(sandbox, world.repo)).toBe(statusOf(sandbox, direct));
      expect(withoutIgnored(worktreeSnapshot(world.repo))).toEqual(withoutIgnored(worktreeSnapshot(direct)));
      await completedOn('desktop', moved.value.handoffId);
      expect(sandbox.git(deskCheckout, ['status', '--porcelain'])).toBe('');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'is blocked on the desktop when its checkout is dirty, before anything moves, and leaves the laptop checkout byte for byte as it was',
    async () => {
      const { laptop, sandbox } = world;
      sandbox.writeFile(deskCheckout, 'wip.txt', 'the desktop has work of its own\n');
      const before = checkoutSnapshot(sandbox, world.repo);
      await waitEligible(laptop, sessionId, 'desktop');
      const moved = await laptop.client.call('startMove', { sessionId, targetDeviceId: desktopId, carry: { confirmedFiles: [] } });
      if (!moved.ok) throw new Error(JSON.stringify(moved));
      const blocked = await waitSession(
        laptop,
        sessionId,
        'the move to be blocked on the desktop',
        (d) => d.lastHandoff?.id === moved.value.handoffId && d.lastHandoff.state === 'cancelled',
      );
      expect(blocked.lastHandoff?.cancelReason?.code).toBe('target_workspace_dirty');
      expect(blocked.isOwner).toBe(true);
      expect(checkoutSnapshot(sandbox, world.repo)).toEqual(before);
      expect(sandbox.git(deskCheckout, ['status', '--porcelain'])).toBe('?? wip.txt');
    },
    TEST_TIMEOUT_MS,
  );
});
