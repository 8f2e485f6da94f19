/**
 * Integration: moving back goes home. A session started on the laptop in a checkout outside its
 * workspace root (~/src/app, as a user would) and moved to the desktop and back continues in that
 * checkout, not in a clone under the root. With uncommitted work in it, the move back is blocked on
 * the laptop's side before anything moves — the checkout named, the fix given, a fresh clone offered —
 * and the blocked state is the session's on both devices; chosen, the fresh clone is said in the
 * transcript and the completed move, and the old checkout keeps its work. Real backend and device
 * processes over real git; one world for the file, the tests in order.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { twoDevicesForSuite } from '../../dev-env/two-devices-suite.ts';
import { deviceId, fullTranscript, startDemoSession, waitEligible, waitSession, type DeviceHandle } from '../../dev-env/two-devices.ts';

/** Real processes on a busy 2-core machine: give each test room beyond the default. */
const TEST_TIMEOUT_MS = 120_000;

const world = twoDevicesForSuite({ env: { BATON_PREPARE_TIMEOUT_MS: '20000', BATON_DEMO_TURN_MS: '100' } });

/** The state the tests share, in order. */
const shared = { sessionId: '', home: '', laptopId: '', desktopId: '' };

/** Moves the session from `from` to `to` and waits until `to` runs it after that very move; `freshClone` as the Move asks. */
async function move(from: DeviceHandle, to: DeviceHandle, toId: string, freshClone = false) {
  await waitEligible(from, shared.sessionId, to.name);
  const asked = { sessionId: shared.sessionId, targetDeviceId: toId, ...(freshClone ? { freshClone } : {}) };
  const started = await from.client.call('startMove', asked);
  if (!started.ok) throw new Error(`the move to ${to.name} did not start: ${JSON.stringify(started)}`);
  const { handoffId } = started.value;
  return waitSession(
    to,
    shared.sessionId,
    `${to.name} to run the session`,
    (d) => d.isOwner && d.lastHandoff?.id === handoffId && d.inputBlock === null,
  );
}

describe('moving a session back to a device that ran it', () => {
  it(
    'continues in the checkout it ran in there, outside the workspace root, and says nothing changed',
    async () => {
      const w = world();
      shared.home = w.sandbox.clone(w.origin, join(w.sandbox.root, 'src', 'app'));
      const session = await startDemoSession(w.laptop, shared.home);
      shared.sessionId = session.id;
      [shared.laptopId, shared.desktopId] = [await deviceId(w.laptop), await deviceId(w.desktop)];
      const onDesktop = await move(w.laptop, w.desktop, shared.desktopId);
      expect(onDesktop.workspace).toBe(join(w.desktop.workspaceRoot, 'app'));

      const back = await move(w.desktop, w.laptop, shared.laptopId);
      // Not laptop-ws/app (a clone of the same origin under the root), not a fresh clone: the checkout it ran in.
      expect(back.workspace).toBe(shared.home);
      expect(back.lastHandoff?.targetFolder).toEqual({ path: shared.home, previousPath: null, changeNote: null });
      const notes = (await fullTranscript(w.laptop, shared.sessionId)).filter((e) => e.role === 'system').map((e) => e.text);
      expect(notes.some((text) => text.includes('now runs in'))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'is blocked on the target before anything moves when that checkout holds uncommitted work, on both devices',
    async () => {
      const w = world();
      await move(w.laptop, w.desktop, shared.desktopId);
      w.sandbox.writeFile(shared.home, 'notes/draft.md', 'left on the laptop\n');
      await waitEligible(w.desktop, shared.sessionId, 'laptop');
      expect(await w.desktop.client.call('startMove', { sessionId: shared.sessionId, targetDeviceId: shared.laptopId })).toMatchObject({
        ok: true,
      });

      const blocked = await waitSession(w.desktop, shared.sessionId, 'the desktop to show the move blocked', (d) => d.blocked !== null);
      expect(blocked).toMatchObject({ isOwner: true, generation: 4, lastHandoff: { state: 'cancelled' } });
      expect(blocked.blocked).toMatchObject({ targetDeviceId: shared.laptopId, targetName: 'laptop', foundBy: 'target' });
      const [blocker] = blocked.blocked!.blockers;
      expect(blocker).toMatchObject({
        code: 'target_workspace_dirty',
        repo: shared.home,
        action: { kind: 'fresh-clone', deviceId: shared.laptopId },
        details: { files: ['notes/'], fileCount: 1 },
      });
      expect(blocker!.message).toBe(`laptop's checkout ${shared.home}, which this session continues in there, has 1 uncommitted change.`);
      expect(blocker!.fix).toContain(`git -C ${shared.home} stash -u`);
      expect(blocker!.fix).toContain('fresh clone on laptop');
      // The blocked state is the session's: the laptop shows it too, from the sealed event stream.
      const onLaptop = await waitSession(w.laptop, shared.sessionId, 'the laptop to show the move blocked', (d) => d.blocked !== null);
      expect(onLaptop.blocked?.blockers[0]?.code).toBe('target_workspace_dirty');
      expect(readFileSync(join(shared.home, 'notes', 'draft.md'), 'utf8')).toBe('left on the laptop\n');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'moves into a fresh clone when asked, says so in the transcript and the completed move, and leaves the checkout as it was',
    async () => {
      const w = world();
      const back = await move(w.desktop, w.laptop, shared.laptopId, true);
      const fresh = join(w.laptop.workspaceRoot, 'app-2');
      expect(back.workspace).toBe(fresh);
      expect(back.blocked).toBeNull();
      const note = `On laptop the session now runs in ${fresh}, not in ${shared.home}: as asked, laptop cloned it afresh and left ${shared.home} as it was.`;
      expect(back.lastHandoff?.targetFolder).toEqual({ path: fresh, previousPath: shared.home, changeNote: note });
      await waitSession(
        w.desktop,
        shared.sessionId,
        'the desktop to see the note and the block cleared',
        (d) => d.transcript.some((e) => e.text === note) && d.blocked === null && d.lastHandoff?.targetFolder?.changeNote === note,
      );
      expect(existsSync(join(shared.home, 'notes', 'draft.md'))).toBe(true);

      // Home is now where it ran last: away and back again lands in the fresh clone, with no note.
      await move(w.laptop, w.desktop, shared.desktopId);
      mkdirSync(join(shared.home, 'more'), { recursive: true });
      const again = await move(w.desktop, w.laptop, shared.laptopId);
      expect(again.workspace).toBe(fresh);
      expect(again.lastHandoff?.targetFolder?.changeNote).toBeNull();
    },
    TEST_TIMEOUT_MS * 2,
  );
});
