/**
 * The blocked move's alert: each blocker in words with its fix and in-place action (its code in
 * Details), Check again, Dismiss; once nothing blocks, "Ready to move" with Move now; and the blocked
 * move the session keeps, shown after a reload.
 */
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MoveBlockView, MoveResult, SessionView } from '../../shared/device-api.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { useDeviceEvents } from '../hooks/use-device-events.ts';
import { useBlockedPanel, useHandoffsStore } from '../stores/handoffs-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice, heldAnswer } from '../test-support/fake-device-api.ts';
import { visibleText } from '../test-support/visible-text.ts';
import {
  checkoutBlocker,
  deviceStatus,
  SAMPLE_STAMP,
  handoffIn,
  historyTo,
  readinessReport,
  REQUESTED_AT,
  sessionView,
} from '../test-support/views.ts';
import { BlockedAlert } from './blocked-alert.tsx';

const DIRTY: Blocker = {
  code: 'dirty_tree',
  repo: '/w',
  message: 'The workspace has uncommitted changes.',
  fix: 'git -C /w commit -am "…"',
  action: { kind: 'commit', repo: '/w' },
  details: { files: ['src/app.ts', 'src/parser.ts'], fileCount: 2 },
};
const UNPUSHED: Blocker = {
  code: 'unpushed_commits',
  repo: '/w/lib',
  message: 'lib has 2 commits not on its upstream.',
  fix: 'git push',
  action: { kind: 'push', repo: '/w/lib' },
};
const OFFLINE: Blocker = { code: 'target_offline', message: 'desktop is offline.', fix: 'Start Baton on desktop.' };

const blockedBy = (blockers: Blocker[]): MoveResult => ({
  ok: false,
  code: 'blocked',
  message: 'Not ready to move.',
  report: readinessReport(blockers),
});

/** A blocked move the session keeps (its view's `blocked`), found by readiness at REQUESTED_AT. */
const keptBlock = (blockers: Blocker[]): MoveBlockView => ({
  sourceDeviceId: 'd1',
  sourceName: 'laptop',
  generation: 1,
  askedBy: null,
  targetDeviceId: 'd2',
  targetName: 'desktop',
  blockers,
  foundBy: 'readiness',
  handoffId: null,
  at: REQUESTED_AT,
});

/** The alert as the run view shows it: while the session's move is blocked (`session`: its view, with any kept blocked move). */
function AlertOfSession({ session = sessionView() }: { session?: SessionView }) {
  const blocked = useBlockedPanel(session);
  return blocked ? <BlockedAlert sessionId="s1" blocked={blocked} /> : null;
}

const AT_FIRST = SAMPLE_STAMP;
/** What the device is asked to start: a move of s1 to the desktop, drawn at generation 1. */
const TO_DESKTOP = { sessionId: 's1', targetDeviceId: 'd2', generation: 1 };

// This device is the laptop (d1), which owns the sample session.
beforeEach(() => useStatusStore.getState().setStatus(deviceStatus()));

/** Starts a move of s1 to the desktop that readiness refuses with `blockers`, and shows its alert. */
async function renderBlocked(blockers: Blocker[]) {
  fakeDevice.answer('startMove', blockedBy(blockers));
  await act(async () => void (await useHandoffsStore.getState().startMove('s1', 'd2', 'desktop', AT_FIRST)));
  render(<AlertOfSession />);
  return screen.getByRole('alert', { name: 'Handoff blocked' });
}

/** The list item of the blocker that says `message`. */
function blockerItem(alert: HTMLElement, message: string): HTMLElement {
  return within(alert).getByText(message).closest('li')!;
}

/** The alert of s1 with the page's event bridge on, once the first reload (status, s1 listed) is in. */
async function renderLive() {
  useStatusStore.getState().setStatus(deviceStatus());
  fakeDevice.answerReload(deviceStatus());
  fakeDevice.answer('listSessions', [sessionView()]);
  function LiveAlert() {
    useDeviceEvents();
    return <AlertOfSession />;
  }
  render(<LiveAlert />);
  await act(() => vi.waitFor(() => expect(useSessionsStore.getState().loaded).toBe(true)));
}

/** A move of s1 its source cancelled when readiness failed again at the checkpoint (the tree got dirty). */
const cancelledAtCheckpoint = () =>
  handoffIn('source-quiescing', {
    state: 'cancelled',
    history: [...historyTo('source-quiescing'), { state: 'cancelled', at: historyTo('completed').at(-1)!.at, deviceId: 'd1' }],
    cancelReason: { code: 'dirty_tree', message: 'The workspace changed while the move was prepared.' },
    blockers: [DIRTY],
  });

describe('the blocked alert', () => {
  it('is an alert headed "Handoff blocked" naming the device the move was for', async () => {
    const alert = await renderBlocked([DIRTY]);
    expect(within(alert).getByRole('heading', { name: 'Handoff blocked' })).toBeInTheDocument();
    expect(alert).toHaveTextContent('desktop');
  });

  it("shows each of several blockers with its sentence and its fix, its code only in Details, and a dirty tree's files", async () => {
    const alert = await renderBlocked([DIRTY, UNPUSHED, OFFLINE]);
    for (const blocker of [DIRTY, UNPUSHED, OFFLINE]) {
      const item = blockerItem(alert, blocker.message);
      expect(item).toHaveTextContent(blocker.fix);
      expect(visibleText(item)).not.toContain(blocker.code);
      expect(item.querySelector('details')).toHaveTextContent(blocker.code);
    }
    expect(alert).toHaveTextContent('2 uncommitted files · 1 unpushed commit');
    for (const file of ['src/app.ts', 'src/parser.ts']) expect(blockerItem(alert, DIRTY.message)).toHaveTextContent(file);
  });

  it('offers Commit for a dirty tree and Push for unpushed commits in place, and no action for what only the target can fix', async () => {
    const alert = await renderBlocked([DIRTY, UNPUSHED, OFFLINE]);
    const dirty = within(blockerItem(alert, DIRTY.message));
    expect(dirty.getByRole('textbox', { name: 'Commit message' })).toBeInTheDocument();
    expect(dirty.getByRole('button', { name: 'Commit' })).toBeInTheDocument();
    expect(within(blockerItem(alert, UNPUSHED.message)).getByRole('button', { name: 'Push' })).toBeInTheDocument();
    expect(within(blockerItem(alert, OFFLINE.message)).queryAllByRole('button')).toEqual([]);
  });

  it('offers no Push for a branch with no remote to push to, only the fix to type', async () => {
    const noRemote: Blocker = {
      code: 'no_upstream',
      repo: '/w',
      message: 'app has no remote to push main to; add one and push.',
      fix: 'git remote add origin <url> && git push -u origin main',
      details: { branch: 'main', remote: null },
    };
    const item = within(blockerItem(await renderBlocked([noRemote]), noRemote.message));
    expect(item.queryByRole('button', { name: 'Push' })).toBeNull();
    expect(item.getByText(noRemote.fix)).toBeInTheDocument();
  });

  it("says beside Commit and Push that they run as the user's own git, hooks included", async () => {
    const alert = await renderBlocked([DIRTY, UNPUSHED]);
    const commit = within(blockerItem(alert, DIRTY.message)).getByRole('button', { name: 'Commit' });
    expect(commit).toHaveAccessibleDescription(/as your own git would: this repository's hooks \(pre-commit…\) and filters run/);
    const push = within(blockerItem(alert, UNPUSHED.message)).getByRole('button', { name: 'Push' });
    expect(push).toHaveAccessibleDescription(/as your own git would: this repository's pre-push hook/);
  });

  it('keeps Commit disabled until a message is typed', async () => {
    const user = userEvent.setup();
    const dirty = within(blockerItem(await renderBlocked([DIRTY]), DIRTY.message));
    const commit = dirty.getByRole('button', { name: 'Commit' });
    expect(commit).toBeDisabled();
    await user.type(dirty.getByRole('textbox', { name: 'Commit message' }), '   ');
    expect(commit).toBeDisabled();
    await user.type(dirty.getByRole('textbox', { name: 'Commit message' }), 'Parser: handle tabs');
    expect(commit).toBeEnabled();
  });

  it('Commit commits that repository with the typed message, then shows the fresh evaluation', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('commitAll', { result: { ok: true, value: undefined }, report: readinessReport([UNPUSHED]) });
    const alert = await renderBlocked([DIRTY, UNPUSHED]);
    const dirty = within(blockerItem(alert, DIRTY.message));
    await user.type(dirty.getByRole('textbox', { name: 'Commit message' }), 'Parser: handle tabs');
    await user.click(dirty.getByRole('button', { name: 'Commit' }));
    expect(fakeDevice.callsOf('commitAll')).toEqual([{ sessionId: 's1', repo: '/w', message: 'Parser: handle tabs' }]);
    expect(alert).not.toHaveTextContent(DIRTY.message);
    expect(alert).toHaveTextContent(UNPUSHED.message);
  });

  it('Push pushes that repository, and says why when it is refused, keeping the blockers', async () => {
    const user = userEvent.setup();
    const refused = { ok: false as const, code: 'push_rejected', message: 'The remote refused the push: fetch first.' };
    fakeDevice.answer('pushRepo', { result: refused, report: readinessReport([DIRTY, UNPUSHED]) });
    const alert = await renderBlocked([DIRTY, UNPUSHED]);
    await user.click(within(blockerItem(alert, UNPUSHED.message)).getByRole('button', { name: 'Push' }));
    expect(fakeDevice.callsOf('pushRepo')).toEqual([{ sessionId: 's1', repo: '/w/lib' }]);
    expect(alert).toHaveTextContent(refused.message);
    expect(alert).toHaveTextContent(UNPUSHED.message);
  });

  it('Check again re-runs readiness for the same device and shows what still blocks', async () => {
    const user = userEvent.setup();
    const alert = await renderBlocked([DIRTY, OFFLINE]);
    fakeDevice.answer('startMove', blockedBy([OFFLINE]));
    await user.click(within(alert).getByRole('button', { name: 'Check again' }));
    expect(fakeDevice.callsOf('startMove')).toEqual([TO_DESKTOP, TO_DESKTOP]);
    expect(alert).not.toHaveTextContent(DIRTY.message);
    expect(alert).toHaveTextContent(OFFLINE.message);
  });

  it('Check again keeps the agent the move was started to continue with', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('startMove', blockedBy([OFFLINE]));
    await act(async () => void (await useHandoffsStore.getState().startMove('s1', 'd2', 'desktop', AT_FIRST, { provider: 'codex' })));
    render(<AlertOfSession />);
    const alert = screen.getByRole('alert', { name: 'Handoff blocked' });
    await user.click(within(alert).getByRole('button', { name: 'Check again' }));
    expect(fakeDevice.callsOf('startMove')).toEqual([
      { ...TO_DESKTOP, provider: 'codex' },
      { ...TO_DESKTOP, provider: 'codex' },
    ]);
  });

  it('cannot be checked again while a check is running', async () => {
    const user = userEvent.setup();
    const alert = await renderBlocked([OFFLINE]);
    const held = heldAnswer<MoveResult>();
    fakeDevice.answer('startMove', held.answer);
    const checkAgain = within(alert).getByRole('button', { name: 'Check again' });
    await user.click(checkAgain);
    expect(checkAgain).toBeDisabled();
    await user.click(checkAgain);
    await act(async () => held.release(blockedBy([OFFLINE])));
    expect(checkAgain).toBeEnabled();
    expect(fakeDevice.callsOf('startMove')).toHaveLength(2);
  });

  it('goes away once a check finds nothing blocking and the move starts', async () => {
    const user = userEvent.setup();
    const alert = await renderBlocked([OFFLINE]);
    fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h1' } });
    await user.click(within(alert).getByRole('button', { name: 'Check again' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('once a fix leaves nothing blocking, turns into a plain "Ready to move" whose Move now starts the move', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('pushRepo', { result: { ok: true, value: undefined }, report: readinessReport([]) });
    const alert = await renderBlocked([UNPUSHED]);
    await user.click(within(alert).getByRole('button', { name: 'Push' }));
    expect(alert).not.toHaveTextContent(UNPUSHED.message);
    expect(within(alert).queryAllByRole('listitem')).toEqual([]);
    expect(screen.getByRole('alert', { name: 'Ready to move' })).toBe(alert);
    expect(alert).toHaveTextContent('Nothing blocks moving it from this device to desktop now.');
    expect(within(alert).queryByRole('button', { name: 'Check again' })).toBeNull();
    fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h1' } });
    await user.click(within(alert).getByRole('button', { name: 'Move now' }));
    expect(fakeDevice.callsOf('startMove')).toHaveLength(2);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('Dismiss puts the alert away without asking the device anything', async () => {
    const user = userEvent.setup();
    const alert = await renderBlocked([DIRTY]);
    await user.click(within(alert).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(fakeDevice.calls.map((call) => call.method)).toEqual(['startMove']);
  });

  it('shows the blockers of a move its source cancelled when readiness failed again at the checkpoint', async () => {
    await renderLive();
    await act(async () => fakeDevice.emit('handoffChanged', cancelledAtCheckpoint()));
    const alert = screen.getByRole('alert', { name: 'Handoff blocked' });
    expect(alert).toHaveTextContent(DIRTY.message);
    expect(within(alert).getByRole('button', { name: 'Commit' })).toBeInTheDocument();
  });

  it('forgets the blocked move once its session leaves the device’s list', async () => {
    await renderLive();
    await act(async () => fakeDevice.emit('handoffChanged', cancelledAtCheckpoint()));
    expect(useHandoffsStore.getState().sessions['s1']?.blocked).toBeDefined();
    await act(async () => fakeDevice.emit('sessionsChanged', [sessionView({ id: 's2' })]));
    expect(useHandoffsStore.getState().sessions['s1']).toBeUndefined();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows the blocked move the session keeps, as after a reload, and acts on it', async () => {
    const user = userEvent.setup();
    const kept = keptBlock([DIRTY]);
    fakeDevice.answer('commitAll', { result: { ok: true, value: undefined }, report: readinessReport([]) });
    render(<AlertOfSession session={sessionView({ blocked: kept })} />);
    const alert = screen.getByRole('alert', { name: 'Handoff blocked' });
    expect(alert).toHaveTextContent(DIRTY.message);
    const dirty = within(blockerItem(alert, DIRTY.message));
    await user.type(dirty.getByRole('textbox', { name: 'Commit message' }), 'Parser: handle tabs');
    await user.click(dirty.getByRole('button', { name: 'Commit' }));
    expect(screen.getByRole('alert', { name: 'Ready to move' })).toBeInTheDocument();
  });

  it('stays away once dismissed, until a newer evaluation blocks again', async () => {
    const user = userEvent.setup();
    const kept = keptBlock([DIRTY]);
    const { rerender } = render(<AlertOfSession session={sessionView({ blocked: kept })} />);
    await user.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
    const later = { ...kept, at: kept.at + 1000 };
    rerender(<AlertOfSession session={sessionView({ blocked: later })} />);
    expect(screen.getByRole('alert', { name: 'Handoff blocked' })).toBeInTheDocument();
  });

  it("offers a move into a fresh clone when the target's own checkout blocked it, and asks for one", async () => {
    const user = userEvent.setup();
    const home = checkoutBlocker('desktop', 'd2');
    fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h1' } });
    render(<AlertOfSession session={sessionView({ blocked: { ...keptBlock([home]), foundBy: 'target' } })} />);
    const alert = screen.getByRole('alert', { name: 'Handoff blocked' });
    await user.click(within(alert).getByRole('button', { name: 'Move into a fresh clone on desktop' }));
    expect(fakeDevice.callsOf('startMove')).toEqual([{ ...TO_DESKTOP, freshClone: true }]);
  });

  it('is not shown while a move of the session runs', () => {
    const kept = keptBlock([DIRTY]);
    render(<AlertOfSession session={sessionView({ blocked: kept, activeHandoff: handoffIn('requested') })} />);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
