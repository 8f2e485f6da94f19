/**
 * Integration: Fork from here between two real device processes over a real backend and real git
 * (a bare origin). The laptop's session moves to the desktop; the desktop — which now runs the
 * original — forks it at that move's checkpoint: a new session owned there at generation 1, titled
 * "… (fork)", on a new branch pushed to the origin, its history saying where it came from; the
 * original's record, checkout and history are untouched. The fork then moves like any session.
 */
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import type { SessionDetail } from '../../shared/device-api.ts';

const TEST_TIMEOUT_MS = 150_000;

let world: TwoDevices;
let laptopId = '';
let desktopId = '';

beforeAll(async () => {
  world = await startTwoDevices({ prefix: 'baton-fork', env: { BATON_DEMO_TURN_MS: '200' } });
  [laptopId, desktopId] = [await deviceId(world.laptop), await deviceId(world.desktop)];
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const done = (d: SessionDetail) => d.isOwner && d.lastHandoff?.state === 'completed';

/** A demo session moved from the laptop to the desktop; its id and the completed handoff's. */
async function movedSession(): Promise<{ sessionId: string; handoffId: string }> {
  const session = await startDemoSession(world.laptop, world.repo);
  await waitEligible(world.laptop, session.id, 'desktop');
  const moved = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
  expect(moved.ok).toBe(true);
  const arrived = await waitSession(world.desktop, session.id, 'the move to complete on the desktop', done, 60_000);
  return { sessionId: session.id, handoffId: arrived.lastHandoff!.id };
}

describe('Fork from here', () => {
  it(
    'makes a new session on a pushed branch from the checkpoint, the original untouched, and the fork moves',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { sessionId, handoffId } = await movedSession();
      const before = (await world.desktop.client.call('getSession', { sessionId }))!;
      const originalHead = git(before.workspace, 'rev-parse', 'HEAD');
      const originalBranch = git(before.workspace, 'branch', '--show-current');

      const forked = await world.desktop.client.call('forkSession', { sessionId, handoffId });
      if (!forked.ok) throw new Error(`${forked.code}: ${forked.message}`);
      const forkId = forked.value.id;
      expect(forkId).not.toBe(sessionId);
      const fork = (await world.desktop.client.call('getSession', { sessionId: forkId }))!;
      expect(fork).toMatchObject({ title: 'Fix the flaky parser test (fork)', generation: 1, ownerDeviceId: desktopId, isOwner: true });
      expect(fork.workspace).toContain('.baton-forks');
      expect(fork.workspace).not.toBe(before.workspace);
      // Its own branch, at the checkpoint's commit, pushed with its upstream set.
      const branch = git(fork.workspace, 'branch', '--show-current');
      expect(branch).toBe(`${originalBranch}-fork-${forkId.slice(0, 8)}`);
      expect(git(fork.workspace, 'rev-parse', 'HEAD')).toBe(originalHead);
      expect(git(fork.workspace, 'rev-parse', '--abbrev-ref', '@{upstream}')).toBe(`origin/${branch}`);
      expect(git(world.origin, 'rev-parse', `refs/heads/${branch}`)).toBe(originalHead);
      // The history: the original's entries, then a note of where the fork came from.
      const note = fork.transcript.find((e) => e.role === 'system' && e.text.startsWith('Forked from'));
      // In a person's words: the repository by name, no ids, no raw timestamp.
      expect(note?.text).toContain('at its move from laptop on ');
      expect(note?.text).toContain(`The repository ${basename(world.origin, '.git')} is on the new branch ${branch}`);
      expect(note?.text).not.toContain(sessionId);
      expect(note?.text).not.toContain(handoffId);
      expect(note?.text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
      expect(fork.transcript.some((e) => e.role === 'assistant')).toBe(true);

      // The fork's agent is told it is a fork, where it runs and on which branch, with the first input it reads.
      expect(await world.desktop.client.call('sendMessage', { sessionId: forkId, text: 'go on in another direction' })).toEqual({
        ok: true,
        value: undefined,
      });
      const answered = await waitSession(world.desktop, forkId, "the fork's first turn", (d) =>
        d.transcript.some((e) => e.role === 'assistant' && e.text.includes('go on in another direction')),
      );
      const reply = answered.transcript.findLast((e) => e.role === 'assistant')!.text;
      expect(reply).toContain(`Baton told me: "Baton: this session is a fork of "Fix the flaky parser test"`);
      expect(reply).toContain(`you now run in ${fork.workspace}, on the new branch ${branch}.`);
      expect(reply).toContain('The original session goes on separately');

      // The original: the same record, generation, checkout and history.
      const after = (await world.desktop.client.call('getSession', { sessionId }))!;
      expect(after).toMatchObject({ generation: before.generation, ownerDeviceId: desktopId, workspace: before.workspace });
      expect(after.transcript).toEqual(before.transcript);
      expect(git(before.workspace, 'branch', '--show-current')).toBe(originalBranch);
      expect(git(before.workspace, 'rev-parse', 'HEAD')).toBe(originalHead);

      // The fork moves there, ready as it is (its branch pushed).
      // The laptop learns of the fork as of any session, with its history: the original's entries, then the note.
      const seen = await waitSession(world.laptop, forkId, 'the laptop to show the fork with its history', (d) =>
        d.transcript.some((e) => e.text.startsWith('Forked from')),
      );
      expect(seen.ownerDeviceId).toBe(desktopId);
      const noteAt = seen.transcript.findIndex((e) => e.text.startsWith('Forked from'));
      expect(seen.transcript.slice(0, noteAt).map((e) => e.text)).toEqual(before.transcript.slice(0, noteAt).map((e) => e.text));
      expect(seen.transcript.slice(0, noteAt).some((e) => e.role === 'assistant')).toBe(true);
      await waitEligible(world.desktop, forkId, 'laptop');
      const readiness = await world.desktop.client.call('checkReadiness', { sessionId: forkId, targetDeviceId: laptopId });
      expect(readiness.blockers).toEqual([]);
      const moved = await world.desktop.client.call('startMove', { sessionId: forkId, targetDeviceId: laptopId });
      expect(moved.ok).toBe(true);
      const there = await waitSession(world.laptop, forkId, 'the fork to arrive on the laptop', done, 60_000);
      expect(there.generation).toBe(2);
      expect(git(there.workspace, 'branch', '--show-current')).toBe(branch);
      const original = (await world.desktop.client.call('getSession', { sessionId }))!;
      expect(original).toMatchObject({ generation: before.generation, isOwner: true });
    },
  );

  it('refuses a handoff that is not a completed move of the session', { timeout: TEST_TIMEOUT_MS }, async () => {
    const session = await startDemoSession(world.laptop, world.repo);
    const refused = await world.laptop.client.call('forkSession', { sessionId: session.id, handoffId: 'no-such-handoff' });
    expect(refused.ok).toBe(false);
  });
});
