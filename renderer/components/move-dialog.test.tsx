/**
 * The Move dialog: this device's readiness as it opens (with Commit and Push in place), one radio per
 * other device, ineligible ones disabled with why and since when, and Start move.
 */
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { DeviceView, MoveResult } from '../../shared/device-api.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice, heldAnswer } from '../test-support/fake-device-api.ts';
import { backendUnreachable, eligible, ineligible, readinessReport, SAMPLE_STAMP } from '../test-support/views.ts';
import { needsBackendReason } from '../model/backend-reach.ts';
import { MoveDialog } from './move-dialog.tsx';

const OLDER_CLI = { code: 'older_cli', message: 'Its Claude Code is older: the agent continues from a rebuilt prompt.' };
const OFFLINE = 'desktop has been offline since 14:02.';
const DEVICES = [eligible('d2', 'desktop'), eligible('d3', 'studio', OLDER_CLI), ineligible('d4', 'nas', 'target_offline', OFFLINE)];

const DIRTY: Blocker = {
  code: 'dirty_tree',
  repo: '/w',
  message: 'app has 1 uncommitted file; commit them so the checkpoint can pin them.',
  fix: 'git add -A && git commit',
  action: { kind: 'commit', repo: '/w' },
  details: { files: ['notes.md'], fileCount: 1 },
};
const UNPUSHED: Blocker = {
  code: 'unpushed_commits',
  repo: '/w',
  message: 'main in app has 1 commit not pushed.',
  fix: 'git push',
  action: { kind: 'push', repo: '/w' },
  details: { ahead: 1 },
};

/** Opens the dialog for session s1 with the device answering `devices` for eligibility and `readiness` for this device. */
async function openDialog(devices = DEVICES, readiness: ReadinessReport = readinessReport([])) {
  fakeDevice.answer('moveEligibility', devices);
  fakeDevice.answer('checkReadiness', readiness);
  const onClose = vi.fn();
  render(<MoveDialog sessionId="s1" sessionTitle="Parser" drawnFor={SAMPLE_STAMP} onClose={onClose} />);
  const dialog = screen.getByRole('dialog', { name: 'Move session' });
  if (devices.length > 0) await within(dialog).findAllByRole('radio');
  return { dialog, onClose, startMove: within(dialog).getByRole('button', { name: 'Start move' }) };
}

describe('the Move dialog', () => {
  it("asks the device which of the account's devices may receive the session when it opens", async () => {
    await openDialog();
    expect(fakeDevice.callsOf('moveEligibility')).toEqual([{ sessionId: 's1' }]);
  });

  it("checks this device's readiness as it opens, and says when it is ready to move", async () => {
    const { dialog } = await openDialog();
    expect(fakeDevice.callsOf('checkReadiness')).toEqual([{ sessionId: 's1' }]);
    const readiness = within(dialog).getByRole('region', { name: /this device/ });
    await within(readiness).findByText('Ready to move');
  });

  it('says what keeps this device from moving in counted words, with Commit and Push in place', async () => {
    const { dialog } = await openDialog(DEVICES, readinessReport([DIRTY, UNPUSHED]));
    const readiness = within(dialog).getByRole('region', { name: /this device/ });
    await within(readiness).findByText('1 uncommitted file · 1 unpushed commit');
    expect(within(readiness).getByRole('button', { name: 'Commit' })).toBeInTheDocument();
    expect(within(readiness).getByRole('button', { name: 'Push' })).toBeInTheDocument();
    expect(readiness).not.toHaveTextContent('Ready to move');
  });

  it('shows the fresh readiness after a fix made in the dialog', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('pushRepo', { result: { ok: true, value: undefined }, report: readinessReport([]) });
    const { dialog } = await openDialog(DEVICES, readinessReport([UNPUSHED]));
    const readiness = within(dialog).getByRole('region', { name: /this device/ });
    await user.click(await within(readiness).findByRole('button', { name: 'Push' }));
    expect(fakeDevice.callsOf('pushRepo')).toEqual([{ sessionId: 's1', repo: '/w' }]);
    await within(readiness).findByText('Ready to move');
  });

  it('a commit made in the dialog keeps it open and shows the fresh readiness', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('commitAll', { result: { ok: true, value: undefined }, report: readinessReport([UNPUSHED]) });
    const { dialog, onClose } = await openDialog(DEVICES, readinessReport([DIRTY, UNPUSHED]));
    const readiness = within(dialog).getByRole('region', { name: /this device/ });
    await user.type(await within(readiness).findByRole('textbox', { name: 'Commit message' }), 'Note it');
    await user.click(within(readiness).getByRole('button', { name: 'Commit' }));
    expect(fakeDevice.callsOf('commitAll')).toEqual([{ sessionId: 's1', repo: '/w', message: 'Note it' }]);
    await within(readiness).findByText('1 unpushed commit', { selector: '.readiness-summary' });
    expect(onClose).not.toHaveBeenCalled();
  });

  it('leaves what only the target can fix to its row, not to this device', async () => {
    const offline: Blocker = { code: 'target_offline', message: 'desktop is offline.', fix: 'Start Baton there.' };
    const { dialog } = await openDialog(DEVICES, readinessReport([offline]));
    await within(within(dialog).getByRole('region', { name: /this device/ })).findByText('Ready to move');
  });

  it('says since when a device that is offline was last seen', async () => {
    useDevicesStore.getState().setDevices([
      {
        id: 'd4',
        name: 'nas',
        status: 'enrolled',
        online: false,
        lastSeenAt: Date.now() - 3 * 60_000,
        presence: 'offline',
        offlineSince: Date.now() - 3 * 60_000,
        isThisDevice: false,
      } satisfies DeviceView,
    ]);
    const { dialog } = await openDialog();
    expect(within(dialog).getByRole('radio', { name: 'nas' })).toHaveAccessibleDescription(`${OFFLINE} Last seen 3 min ago.`);
  });

  it('says a device that may receive can receive it now', async () => {
    const { dialog } = await openDialog();
    expect(dialog).toHaveTextContent('Online now and ready to receive it.');
  });

  it('offers one radio per device, named by the device name', async () => {
    const { dialog } = await openDialog();
    expect(
      within(dialog)
        .getAllByRole('radio')
        .map((radio) => radio.getAttribute('value')),
    ).toEqual(['d2', 'd3', 'd4']);
    for (const name of ['desktop', 'studio', 'nas']) expect(within(dialog).getByRole('radio', { name })).toBeInTheDocument();
  });

  it('disables a device that cannot receive, with its reason', async () => {
    const { dialog } = await openDialog();
    const nas = within(dialog).getByRole('radio', { name: 'nas' });
    expect(nas).toBeDisabled();
    expect(nas).toHaveAccessibleDescription(`${OFFLINE} Never seen online.`);
    expect(within(dialog).getByRole('radio', { name: 'desktop' })).toBeEnabled();
  });

  it('tells of a device that will resume differently, and still lets it be chosen', async () => {
    const { dialog } = await openDialog();
    const studio = within(dialog).getByRole('radio', { name: 'studio' });
    expect(studio).toBeEnabled();
    expect(studio).toHaveAccessibleDescription(OLDER_CLI.message);
  });

  it('keeps Start move disabled until an eligible device is chosen', async () => {
    const user = userEvent.setup();
    const { dialog, startMove } = await openDialog();
    expect(startMove).toBeDisabled();
    await user.click(within(dialog).getByRole('radio', { name: 'nas' }));
    expect(startMove).toBeDisabled();
    await user.click(within(dialog).getByRole('radio', { name: 'desktop' }));
    expect(startMove).toBeEnabled();
  });

  it('Start move asks the device to move the session to the chosen device, then closes', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h1' } });
    const { dialog, onClose, startMove } = await openDialog();
    await user.click(within(dialog).getByRole('radio', { name: 'studio' }));
    await user.click(startMove);
    expect(fakeDevice.callsOf('startMove')).toEqual([{ sessionId: 's1', targetDeviceId: 'd3', generation: 1 }]);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('cannot be started twice while the first start is being checked', async () => {
    const user = userEvent.setup();
    const held = heldAnswer<MoveResult>();
    fakeDevice.answer('startMove', held.answer);
    const { dialog, onClose, startMove } = await openDialog();
    await user.click(within(dialog).getByRole('radio', { name: 'desktop' }));
    await user.click(startMove);
    expect(startMove).toBeDisabled();
    await user.click(startMove);
    await act(async () => held.release({ ok: true, value: { handoffId: 'h1' } }));
    expect(fakeDevice.callsOf('startMove')).toHaveLength(1);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes on a blocked start and leaves the readiness report for the blocked alert', async () => {
    const user = userEvent.setup();
    const blockers = [{ code: 'dirty_tree' as const, repo: '/w', message: 'There are uncommitted changes.', fix: 'git commit -am "…"' }];
    const report = readinessReport(blockers);
    fakeDevice.answer('startMove', { ok: false, code: 'blocked', message: 'Not ready to move.', report });
    const { dialog, onClose, startMove } = await openDialog();
    await user.click(within(dialog).getByRole('radio', { name: 'desktop' }));
    await user.click(startMove);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(useHandoffsStore.getState().sessions['s1']?.blocked).toMatchObject({ targetDeviceId: 'd2', targetName: 'desktop', report });
  });

  it('stays open on a refused start and says why', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('startMove', { ok: false, code: 'handoff_in_progress', message: 'Another move of this session is under way.' });
    const { dialog, onClose, startMove } = await openDialog();
    await user.click(within(dialog).getByRole('radio', { name: 'desktop' }));
    await user.click(startMove);
    expect(dialog).toHaveTextContent('Another move of this session is under way.');
    expect(onClose).not.toHaveBeenCalled();
    expect(startMove).toBeEnabled();
  });

  it('Cancel closes it without moving anything', async () => {
    const user = userEvent.setup();
    const { dialog, onClose } = await openDialog();
    await user.click(within(dialog).getByRole('radio', { name: 'desktop' }));
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(fakeDevice.callsOf('startMove')).toEqual([]);
  });

  it('offers no device and no move when the account has no other device', async () => {
    const { dialog, startMove } = await openDialog([]);
    await vi.waitFor(() => expect(fakeDevice.callsOf('moveEligibility')).toHaveLength(1));
    expect(within(dialog).queryAllByRole('radio')).toEqual([]);
    expect(startMove).toBeDisabled();
  });

  it('says why when the device cannot tell which devices may receive', async () => {
    fakeDevice.answer('moveEligibility', () => Promise.reject(new Error('The device runtime is not running.')));
    fakeDevice.answer('checkReadiness', readinessReport([]));
    render(<MoveDialog sessionId="s1" sessionTitle="Parser" drawnFor={SAMPLE_STAMP} onClose={() => undefined} />);
    const dialog = screen.getByRole('dialog', { name: 'Move session' });
    await within(dialog).findByText('The device runtime is not running.');
    expect(within(dialog).getByRole('button', { name: 'Start move' })).toBeDisabled();
  });

  it("asks again when the account's devices change", async () => {
    await openDialog();
    await act(async () => useDevicesStore.getState().setDevices([]));
    expect(fakeDevice.callsOf('moveEligibility')).toHaveLength(2);
  });

  it('keeps Start move disabled, with why, while the backend is unreachable', async () => {
    const user = userEvent.setup();
    useStatusStore.getState().setStatus(backendUnreachable());
    const { dialog, startMove } = await openDialog();
    await user.click(within(dialog).getByRole('radio', { name: 'desktop' }));
    expect(startMove).toBeDisabled();
    expect(dialog).toHaveTextContent(needsBackendReason(backendUnreachable())!);
  });
});
