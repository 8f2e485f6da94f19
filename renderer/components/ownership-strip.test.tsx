/**
 * The ownership strip: where the session runs and at which generation, the stepper while it moves,
 * Move and Cancel move (each disabled with why), and how the last move ended.
 */
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ActionResult, SessionView } from '../../shared/device-api.ts';
import type { HandoffState } from '../../shared/handoff-states.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice, heldAnswer } from '../test-support/fake-device-api.ts';
import { backendUnreachable, deviceStatus, handoffIn, historyTo, sessionView } from '../test-support/views.ts';
import { needsBackendReason } from './backend-reach.ts';
import { OwnershipStrip } from './ownership-strip.tsx';

/** The strip of `session` on this device (`deviceId`: the laptop unless told), found by its role and name. */
function renderStrip(session: SessionView, deviceId = 'd1') {
  useStatusStore.getState().setStatus(deviceStatus({ deviceId }));
  const onMove = vi.fn();
  const view = render(<OwnershipStrip session={session} onMove={onMove} />);
  const strip = screen.getByRole('region', { name: 'Ownership' });
  return { ...view, strip, onMove, move: within(strip).getByRole('button', { name: 'Move' }) };
}

const cancelButton = (strip: HTMLElement) => within(strip).queryByRole('button', { name: 'Cancel move' });
const moving = (state: HandoffState) => sessionView({ condition: 'moving', activeHandoff: handoffIn(state) });

/** The desktop's view once the session moved to it (generation 2). */
const arrived = (over: Partial<SessionView>) =>
  sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', generation: 2, isOwner: true, condition: 'owned', ...over });

describe('the ownership strip', () => {
  it('says which device runs the session, that it is this one, and its generation', () => {
    const { strip } = renderStrip(sessionView());
    expect(strip).toHaveTextContent('laptop');
    expect(strip).toHaveTextContent('this device');
    expect(strip).toHaveTextContent('generation 1');
  });

  it('does not call another device "this device"', () => {
    const { strip } = renderStrip(sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', isOwner: false, condition: 'remote' }));
    expect(strip).toHaveTextContent('desktop');
    expect(strip).not.toHaveTextContent('this device');
  });

  it('shows no step and offers no Cancel move while no move runs', () => {
    const { strip } = renderStrip(sessionView());
    expect(strip.querySelector('[aria-current="step"]')).toBeNull();
    expect(within(strip).queryByRole('list')).toBeNull();
    expect(cancelButton(strip)).toBeNull();
  });

  it('Move opens the Move dialog on the owner', async () => {
    const { move, onMove } = renderStrip(sessionView());
    expect(move).toBeEnabled();
    await userEvent.click(move);
    expect(onMove).toHaveBeenCalledTimes(1);
  });

  it('disables Move off the owner, saying which device can move it', () => {
    const { move } = renderStrip(sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', isOwner: false, condition: 'remote' }));
    expect(move).toBeDisabled();
    expect(move).toHaveAccessibleDescription(/desktop/);
  });

  it('disables Move during a move, with why', () => {
    const { move } = renderStrip(moving('target-prepared'));
    expect(move).toBeDisabled();
    expect(move).toHaveAccessibleDescription(/.+/);
  });

  it('shows the stepper with the current step while the session moves', () => {
    const { strip } = renderStrip(moving('source-quiescing'));
    const stepper = within(strip).getByRole('list', { name: /desktop/ });
    expect(stepper.querySelectorAll('[aria-current="step"]')).toHaveLength(1);
  });

  it('offers Cancel move only while cancellable: before ownership is transferred', () => {
    const cancellable: HandoffState[] = ['requested', 'target-prepared', 'source-quiescing', 'source-relinquished-and-checkpointed'];
    const past: HandoffState[] = ['ownership-transferred', 'target-activating'];
    for (const state of [...cancellable, ...past]) {
      const { strip, unmount } = renderStrip(moving(state));
      expect(cancelButton(strip) !== null, state).toBe(cancellable.includes(state));
      unmount();
    }
  });

  it('Cancel move asks the device to cancel, and cannot be pressed again until it answers', async () => {
    const held = heldAnswer<ActionResult>();
    fakeDevice.answer('cancelMove', held.answer);
    const { strip } = renderStrip(moving('source-quiescing'));
    const cancel = cancelButton(strip)!;
    await userEvent.click(cancel);
    expect(fakeDevice.callsOf('cancelMove')).toEqual([{ sessionId: 's1' }]);
    expect(cancel).toBeDisabled();
    await act(async () => held.release({ ok: true, value: undefined }));
    expect(cancel).toBeEnabled();
  });

  it('says why the device refused to cancel', async () => {
    fakeDevice.answer('cancelMove', { ok: false, code: 'not_cancellable', message: 'Ownership has already moved to desktop.' });
    const { strip } = renderStrip(moving('source-relinquished-and-checkpointed'));
    await userEvent.click(cancelButton(strip)!);
    expect(strip).toHaveTextContent('Ownership has already moved to desktop.');
  });

  it('after a cancel, says why, with the reason code, and offers Move again', () => {
    const cancelled = handoffIn('target-prepared', {
      state: 'cancelled',
      history: [...historyTo('target-prepared'), { state: 'cancelled', at: historyTo('source-quiescing').at(-1)!.at, deviceId: 'd1' }],
      cancelReason: { code: 'user_cancelled', message: 'The move was cancelled on laptop.' },
    });
    const { strip, move } = renderStrip(sessionView({ lastHandoff: cancelled }));
    expect(strip).toHaveTextContent('The move was cancelled on laptop.');
    expect(strip).toHaveTextContent('user_cancelled');
    expect(strip.querySelector('[aria-current="step"]')).toBeNull();
    expect(move).toBeEnabled();
  });

  it('after completion on the target, says where it came from, how it resumed and when it completed', () => {
    const completed = handoffIn('completed', { targetDeviceId: 'd2', resumePath: 'checkpoint-import' });
    const { strip } = renderStrip(arrived({ lastHandoff: completed }), 'd2');
    expect(strip).toHaveTextContent('generation 2');
    expect(strip).toHaveTextContent('laptop');
    expect(strip).toHaveTextContent('checkpoint-import');
    const completedAt = historyTo('completed').at(-1)!.at;
    expect(strip.querySelector(`time[datetime="${new Date(completedAt).toISOString()}"]`)).not.toBeNull();
  });

  it('lists each drift the target found, with its code', () => {
    const driftWarnings = [
      { code: 'head_moved', detail: 'HEAD is 2 commits past the checkpoint.' },
      { code: 'dirty_tree', detail: 'src/app.ts changed since the checkpoint.' },
    ];
    const completed = handoffIn('completed', { resumePath: 'summary-continuation', driftWarnings });
    const { strip } = renderStrip(arrived({ lastHandoff: completed }), 'd2');
    for (const warning of driftWarnings) {
      expect(strip).toHaveTextContent(warning.code);
      expect(strip).toHaveTextContent(warning.detail);
    }
    expect(strip).toHaveTextContent('summary-continuation');
  });

  it('on the source after completion, names both devices and leaves Move to the new owner', () => {
    const completed = handoffIn('completed', { resumePath: 'checkpoint-import' });
    const session = sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', generation: 2, isOwner: false, condition: 'moved' });
    const { strip, move } = renderStrip({ ...session, lastHandoff: completed });
    expect(strip).toHaveTextContent('laptop');
    expect(strip).toHaveTextContent('desktop');
    expect(move).toBeDisabled();
    expect(move).toHaveAccessibleDescription(/desktop/);
  });

  it('does not call a move cancelled when ownership moved and only activation failed', () => {
    const failed = handoffIn('target-activating', {
      state: 'cancelled',
      history: [...historyTo('target-activating'), { state: 'cancelled', at: historyTo('completed').at(-1)!.at, deviceId: 'd2' }],
      cancelReason: { code: 'digest_mismatch', message: 'The checkpoint does not match its digest.' },
    });
    const attention = { code: 'activation_failed', message: 'Activation failed.', fix: 'Retry.', retryActivation: true };
    const { strip } = renderStrip(arrived({ condition: 'needs-attention', attention, lastHandoff: failed }), 'd2');
    expect(strip).toHaveTextContent('digest_mismatch');
    expect(strip).not.toHaveTextContent(/cancelled/i);
  });

  it('Retry activation asks the device to activate again, and says why when it is refused', async () => {
    fakeDevice.answer('retryActivation', { ok: false, code: 'workspace_missing', message: 'The workspace /w is gone.' });
    const attention = { code: 'activation_failed', message: 'Activation failed.', fix: 'Retry.', retryActivation: true };
    const { strip, move } = renderStrip(arrived({ condition: 'needs-attention', attention }), 'd2');
    expect(move).toBeDisabled();
    await userEvent.click(within(strip).getByRole('button', { name: 'Retry activation' }));
    expect(fakeDevice.callsOf('retryActivation')).toEqual([{ sessionId: 's1' }]);
    expect(strip).toHaveTextContent('The workspace /w is gone.');
  });

  it('says what needs attention and its fix when retrying cannot help, and offers no retry', () => {
    const attention = {
      code: 'workspace_missing',
      message: 'The workspace /w is gone.',
      fix: 'Clone it back to /w.',
      retryActivation: false,
    };
    const { strip, move } = renderStrip(arrived({ condition: 'needs-attention', attention }), 'd2');
    expect(strip).toHaveTextContent(attention.message);
    expect(strip).toHaveTextContent(attention.fix);
    expect(within(strip).queryByRole('button', { name: 'Retry activation' })).toBeNull();
    expect(move).toBeDisabled();
  });

  it('disables Move and Cancel move, saying why, while the backend is unreachable', () => {
    const reason = needsBackendReason(backendUnreachable())!;
    useStatusStore.getState().setStatus(backendUnreachable());
    const { unmount } = render(<OwnershipStrip session={sessionView()} onMove={() => undefined} />);
    const idle = screen.getByRole('region', { name: 'Ownership' });
    expect(within(idle).getByRole('button', { name: 'Move' })).toHaveAccessibleDescription(reason);
    expect(within(idle).getByRole('button', { name: 'Move' })).toBeDisabled();
    unmount();
    render(<OwnershipStrip session={moving('target-prepared')} onMove={() => undefined} />);
    const cancel = cancelButton(screen.getByRole('region', { name: 'Ownership' }))!;
    expect(cancel).toBeDisabled();
    expect(cancel).toHaveAccessibleDescription(reason);
  });
});
