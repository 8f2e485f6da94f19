/**
 * Carry my changes in the UI: the blocked alert offers it beside Commit and Push, saying what it
 * takes, and moves again carrying the work once each file that looks like a secret is confirmed by
 * name; the Move dialog offers it as part of the move (ticked when it is this device's default); a
 * completed move says on each side what came along and where the source keeps its copy.
 */
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CarryOffer } from '../../shared/carry.ts';
import type { HandoffView, MoveResult, SessionView } from '../../shared/device-api.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import { useBlockedPanel, useHandoffsStore } from '../stores/handoffs-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { deviceStatus, eligible, handoffIn, readinessReport, SAMPLE_STAMP, sessionView } from '../test-support/views.ts';
import { BlockedAlert } from './blocked-alert.tsx';
import { LastMove } from './last-move.tsx';
import { MoveDialog } from './move-dialog.tsx';

const DIRTY: Blocker = {
  code: 'dirty_tree',
  repo: '/w',
  message: 'app has 4 uncommitted files; commit them so the checkpoint can pin them.',
  fix: 'git add -A && git commit',
  action: { kind: 'commit', repo: '/w' },
  details: { files: ['src/app.ts'], fileCount: 4 },
  carryable: true,
};
const OFFER: CarryOffer = {
  changed: 3,
  added: 1,
  deleted: 0,
  commits: 2,
  secretFiles: [],
  estimatedBytes: 4096,
  largest: [],
  repos: ['/w'],
};
const withOffer = (blockers: Blocker[], offer: CarryOffer = OFFER): ReadinessReport => ({ ...readinessReport(blockers), carry: offer });
const blockedBy = (report: ReadinessReport): MoveResult => ({ ok: false, code: 'blocked', message: 'Not ready to move.', report });

// This device is the laptop (d1), which owns the sample session.
beforeEach(() => useStatusStore.getState().setStatus(deviceStatus()));

/** The alert as the run view shows it, while the session's move is blocked. */
function AlertOfSession({ session = sessionView() }: { session?: SessionView }) {
  const blocked = useBlockedPanel(session);
  return blocked ? <BlockedAlert sessionId="s1" blocked={blocked} /> : null;
}

/** Starts a move of s1 to the desktop that readiness refuses with `report`, and shows its alert. */
async function renderBlocked(report: ReadinessReport) {
  fakeDevice.answer('startMove', blockedBy(report));
  await act(async () => void (await useHandoffsStore.getState().startMove('s1', 'd2', 'desktop', SAMPLE_STAMP)));
  render(<AlertOfSession />);
  return screen.getByRole('alert', { name: 'Handoff blocked' });
}

/** The last move panel of a completed `handoff`, as this device (`arrivedHere`: the target) draws it. */
const completedPanel = (handoff: HandoffView, arrivedHere: boolean) => ({
  kind: 'completed' as const,
  handoff,
  arrivedHere,
  drift: null,
  canRetry: false,
});

describe('Carry my changes in the blocked alert', () => {
  it('is offered beside Commit, saying what it takes, sealed, and moves again carrying the work', async () => {
    const user = userEvent.setup();
    const alert = await renderBlocked(withOffer([DIRTY]));
    const offer = within(alert).getByRole('region', { name: 'Or carry your changes to desktop as they are' });
    expect(offer).toHaveTextContent('Takes 3 changed files, 1 new file, 2 unpushed commits along, sealed: only your devices can open it.');
    expect(offer).toHaveTextContent('your copy here goes into a git stash named for the move');
    expect(within(alert).getByRole('button', { name: 'Commit' })).toBeInTheDocument();
    fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h2' } });
    await user.click(within(offer).getByRole('button', { name: 'Carry my changes' }));
    expect(fakeDevice.callsOf('startMove').at(-1)).toEqual({
      sessionId: 's1',
      targetDeviceId: 'd2',
      generation: 1,
      carry: { confirmedFiles: [] },
    });
  });

  it('asks for each file that looks like a secret by name before it carries, and sends those confirmed', async () => {
    const user = userEvent.setup();
    const alert = await renderBlocked(withOffer([DIRTY], { ...OFFER, secretFiles: ['/w/.env', '/w/deploy.pem'] }));
    const carry = within(alert).getByRole('button', { name: 'Carry my changes' });
    expect(within(alert).getByRole('group', { name: /These files look like secrets/ })).toHaveTextContent('They travel sealed');
    await user.click(within(alert).getByRole('checkbox', { name: '/w/.env' }));
    expect(carry).toBeDisabled();
    await user.click(within(alert).getByRole('checkbox', { name: '/w/deploy.pem' }));
    expect(carry).toBeEnabled();
    fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h2' } });
    await user.click(carry);
    expect(fakeDevice.callsOf('startMove').at(-1)?.carry).toEqual({ confirmedFiles: ['/w/.env', '/w/deploy.pem'] });
  });

  it('is not offered when something carrying cannot fix blocks too (a capsule over the limit)', async () => {
    const tooLarge: Blocker = { code: 'carry_too_large', message: 'The changes to carry are about 300 MiB.', fix: 'Commit and push.' };
    const alert = await renderBlocked(withOffer([DIRTY, tooLarge]));
    expect(within(alert).queryByRole('button', { name: 'Carry my changes' })).toBeNull();
    expect(alert).toHaveTextContent('changes too large to carry');
  });
});

describe('Carry my changes in the Move dialog', () => {
  async function openDialog(report: ReadinessReport) {
    fakeDevice.answer('moveEligibility', [eligible('d2', 'desktop')]);
    fakeDevice.answer('checkReadiness', report);
    render(<MoveDialog sessionId="s1" sessionTitle="Parser" drawnFor={SAMPLE_STAMP} onClose={vi.fn()} />);
    const dialog = screen.getByRole('dialog', { name: 'Move session' });
    await within(dialog).findAllByRole('radio');
    return dialog;
  }

  it('offers it unticked by default and, ticked, starts the move carrying the work', async () => {
    const user = userEvent.setup();
    const dialog = await openDialog(withOffer([DIRTY]));
    const box = await within(dialog).findByRole('checkbox', { name: 'Carry my changes' });
    expect(box).not.toBeChecked();
    expect(box).toHaveAccessibleDescription(/Takes 3 changed files, 1 new file, 2 unpushed commits along, sealed/);
    await user.click(box);
    await user.click(within(dialog).getByRole('radio', { name: 'desktop' }));
    fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h2' } });
    await user.click(within(dialog).getByRole('button', { name: 'Start move' }));
    expect(fakeDevice.callsOf('startMove').at(-1)).toEqual({
      sessionId: 's1',
      targetDeviceId: 'd2',
      generation: 1,
      carry: { confirmedFiles: [] },
    });
  });

  it("is ticked when carrying is this device's default, and unticked says not to carry", async () => {
    const user = userEvent.setup();
    useStatusStore.getState().setStatus(deviceStatus({ moveSettings: { carryByDefault: true, carryLimitMiB: 256 } }));
    const dialog = await openDialog(withOffer([DIRTY], { ...OFFER, secretFiles: ['/w/.env'] }));
    const box = await within(dialog).findByRole('checkbox', { name: 'Carry my changes' });
    expect(box).toBeChecked();
    await user.click(within(dialog).getByRole('radio', { name: 'desktop' }));
    const start = within(dialog).getByRole('button', { name: 'Start move' });
    expect(start).toBeDisabled();
    await user.click(within(dialog).getByRole('checkbox', { name: '/w/.env' }));
    expect(start).toBeEnabled();
    await user.click(box);
    fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h2' } });
    await user.click(start);
    expect(fakeDevice.callsOf('startMove').at(-1)?.carry).toBeNull();
  });
});

describe('a completed move that carried changes', () => {
  const carried = { ...OFFER, repos: ['.'], keptAs: 'baton: carried to desktop at 14:03 (handoff h1)' };

  it('says on the target what came along, uncommitted, and where the source keeps its copy', () => {
    const handoff = handoffIn('completed', { carried: { ...carried, parked: null } });
    render(<LastMove session={sessionView()} panel={completedPanel(handoff, true)} backendReason={null} />);
    const panel = screen.getByRole('status');
    expect(panel).toHaveTextContent('Your changes came along: 3 changed files, 1 new file, 2 unpushed commits, still uncommitted here');
    expect(panel).toHaveTextContent('laptop keeps its copy in the stash “baton: carried to desktop at 14:03 (handoff h1)”.');
  });

  it('says on the source where its copy is kept', () => {
    const handoff = handoffIn('completed', { carried: { ...carried, parked: { ok: true } } });
    render(<LastMove session={sessionView()} panel={completedPanel(handoff, false)} backendReason={null} />);
    expect(screen.getByRole('status')).toHaveTextContent(
      'Your copy here is kept in the stash “baton: carried to desktop at 14:03 (handoff h1)”',
    );
  });
});
