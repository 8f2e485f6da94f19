/**
 * The ownership strip: where the session runs, in words, and at which generation; off the owner how
 * to continue; the steps while it moves; Move and Cancel move (each disabled with why); how the last
 * move ended, with Try again after a cancel.
 */
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ActionResult, SessionView } from '../../shared/device-api.ts';
import type { HandoffState } from '../../shared/handoff-states.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice, heldAnswer } from '../test-support/fake-device-api.ts';
import { visibleText } from '../test-support/visible-text.ts';
import { backendUnreachable, deviceStatus, handoffIn, historyTo, sessionView } from '../test-support/views.ts';
import { needsBackendReason } from '../model/backend-reach.ts';
import { OwnershipStrip } from './ownership-strip.tsx';

/** The strip of `session` on this device (`deviceId`: the laptop unless told), found by its role and name. */
function renderStrip(session: SessionView, deviceId = 'd1') {
  useStatusStore.getState().setStatus(deviceStatus({ deviceId }));
  const onMove = vi.fn();
  const view = render(<OwnershipStrip session={session} onMove={onMove} />);
  const strip = screen.getByRole('region', { name: 'Ownership' });
  return { ...view, strip, onMove, move: within(strip).queryByRole('button', { name: 'Move' }) };
}

const cancelButton = (strip: HTMLElement) => within(strip).queryByRole('button', { name: 'Cancel move' });
const moving = (state: HandoffState) => sessionView({ condition: 'moving', activeHandoff: handoffIn(state) });

/** The desktop's view once the session moved to it (generation 2). */
const arrived = (over: Partial<SessionView>) =>
  sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', generation: 2, isOwner: true, condition: 'owned', ...over });

describe('the ownership strip', () => {
  it('says in words where the session runs, that it is this device, the generation as secondary text at its foot', () => {
    const { strip, move } = renderStrip(sessionView());
    expect(strip).toHaveTextContent('Running on laptop — this device');
    const generation = within(strip).getByText('generation 1');
    expect(generation.closest('p')).toHaveTextContent('generation 1 · never moved');
    // After what a person acts on, not as the line under the headline.
    expect(move!.compareDocumentPosition(generation) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(strip.lastElementChild).toBe(generation.closest('p'));
  });

  it('counts the moves in words: one time, then times', () => {
    const once = renderStrip(sessionView({ generation: 2 }));
    expect(once.strip).toHaveTextContent('moved 1 time');
    once.unmount();
    expect(renderStrip(sessionView({ generation: 4 })).strip).toHaveTextContent('moved 3 times');
  });

  it('off the owner, says where it runs without calling it this device, and how to continue here', () => {
    const { strip } = renderStrip(sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', isOwner: false, condition: 'remote' }));
    expect(strip).toHaveTextContent('Running on desktop');
    expect(strip).not.toHaveTextContent('this device');
    expect(strip).toHaveTextContent('To continue on laptop, use Move here: desktop checks that nothing is left behind');
  });

  it('shows no step, no skeleton of one and no Cancel move while no move runs', () => {
    const { strip } = renderStrip(sessionView());
    expect(strip.querySelector('[aria-current="step"]')).toBeNull();
    expect(within(strip).queryByRole('list')).toBeNull();
    expect(within(strip).queryByRole('img')).toBeNull();
    expect(cancelButton(strip)).toBeNull();
  });

  it('Move opens the Move dialog on the owner', async () => {
    const { move, onMove } = renderStrip(sessionView());
    expect(move).toBeEnabled();
    await userEvent.click(move!);
    expect(onMove).toHaveBeenCalledTimes(1);
  });

  it('disables Move off the owner, saying which device can move it', () => {
    const { move } = renderStrip(sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', isOwner: false, condition: 'remote' }));
    expect(move).toBeDisabled();
    expect(move).toHaveAccessibleDescription(/desktop/);
  });

  it('offers no Move during a move, only Cancel move, and no sentence that a move is in progress', () => {
    for (const state of ['target-prepared', 'target-activating'] as const) {
      const { strip, move, unmount } = renderStrip(moving(state));
      expect(move, state).toBeNull();
      expect(strip, state).not.toHaveTextContent(/already in progress/);
      unmount();
    }
    expect(cancelButton(renderStrip(moving('target-prepared')).strip)).toBeEnabled();
  });

  it('shows the two devices and the steps, the current one marked, while the session moves', () => {
    const { strip } = renderStrip(moving('source-quiescing'));
    const stepper = within(strip).getByRole('list', { name: /desktop/ });
    expect(stepper.querySelectorAll('[aria-current="step"]')).toHaveLength(1);
    expect(within(strip).getByRole('img', { name: /from laptop to desktop/ })).toBeInTheDocument();
    expect(strip).toHaveTextContent('generation 1');
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

  const cancelledBy = (code: string, message: string, last: HandoffState = 'target-prepared') =>
    handoffIn(last, {
      state: 'cancelled',
      history: [...historyTo(last), { state: 'cancelled', at: historyTo('completed').at(-1)!.at, deviceId: 'd1' }],
      cancelReason: { code, message },
    });

  it('after a cancel, says why in a sentence and what was kept, the code only in Details, and offers Try again', () => {
    const { strip, move } = renderStrip(sessionView({ lastHandoff: cancelledBy('user_cancelled', 'The move was cancelled.') }));
    expect(strip).toHaveTextContent('The move to desktop was cancelled.');
    expect(strip).toHaveTextContent('The session stays on laptop; nothing was lost.');
    expect(visibleText(strip)).not.toContain('user_cancelled');
    expect(strip.querySelector('details')).toHaveTextContent('user_cancelled');
    expect(strip.querySelector('[aria-current="step"]')).toBeNull();
    expect(within(strip).getByRole('button', { name: 'Try again' })).toBeEnabled();
    expect(move).toBeEnabled();
  });

  it('after a timeout, says the target did not get ready in time and what to check', () => {
    const timedOut = cancelledBy('target_timeout', 'The target did not prepare within 30 s.', 'requested');
    const { strip } = renderStrip(sessionView({ lastHandoff: timedOut }));
    expect(strip).toHaveTextContent('desktop did not get ready in time — check that Baton is running there and online, then try again.');
    expect(visibleText(strip)).not.toContain('target_timeout');
  });

  it('Try again asks the device for the same move, and says why when it is refused', async () => {
    fakeDevice.answer('startMove', { ok: false, code: 'handoff_in_progress', message: 'Another move of this session is under way.' });
    const { strip } = renderStrip(sessionView({ lastHandoff: cancelledBy('target_timeout', 'The target did not prepare.', 'requested') }));
    await userEvent.click(within(strip).getByRole('button', { name: 'Try again' }));
    expect(fakeDevice.callsOf('startMove')).toEqual([{ sessionId: 's1', targetDeviceId: 'd2', generation: 1 }]);
    expect(strip).toHaveTextContent('Another move of this session is under way.');
  });

  it('offers no Try again on a device that does not hold the session', () => {
    const session = sessionView({ ownerDeviceId: 'd1', ownerName: 'laptop', isOwner: false, condition: 'remote' });
    const { strip } = renderStrip({ ...session, lastHandoff: cancelledBy('user_cancelled', 'The move was cancelled.') }, 'd2');
    expect(strip).toHaveTextContent('The session stays on laptop');
    expect(within(strip).queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('after completion on the target, says where it came from, how the agent continued, in which folder and when', () => {
    const completed = handoffIn('completed', { targetDeviceId: 'd2', resumePath: 'checkpoint-import' });
    const { strip } = renderStrip(arrived({ lastHandoff: completed, workspace: '/home/me/src/app' }), 'd2');
    expect(strip).toHaveTextContent('Running on desktop — this device');
    expect(strip).toHaveTextContent('generation 2');
    expect(strip).toHaveTextContent('Moved here from laptop.');
    expect(strip).toHaveTextContent('The agent continued with its full state.');
    expect(strip).toHaveTextContent('It runs in /home/me/src/app on this device.');
    expect(visibleText(strip)).not.toContain('checkpoint-import');
    expect(strip.querySelector('details')).toHaveTextContent('checkpoint-import');
    const completedAt = historyTo('completed').at(-1)!.at;
    expect(strip.querySelector(`time[datetime="${new Date(completedAt).toISOString()}"]`)).not.toBeNull();
  });

  it('lists each drift the target found in words, its code in Details', () => {
    const driftWarnings = [
      { code: 'head_moved', detail: 'HEAD is 2 commits past the checkpoint.' },
      { code: 'dirty_tree', detail: 'src/app.ts changed since the checkpoint.' },
    ];
    const completed = handoffIn('completed', { resumePath: 'summary-continuation', driftWarnings });
    const { strip } = renderStrip(arrived({ lastHandoff: completed }), 'd2');
    for (const warning of driftWarnings) {
      expect(visibleText(strip)).toContain(warning.detail);
      expect(strip.querySelector('details')).toHaveTextContent(warning.code);
    }
    expect(strip).toHaveTextContent('The agent continued from a summary of what happened before.');
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
    expect(strip).toHaveTextContent('Moved here from laptop; activation failed.');
    expect(strip.querySelector('details')).toHaveTextContent('digest_mismatch');
    expect(visibleText(strip)).not.toMatch(/cancelled|digest_mismatch/i);
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
