/** The handoff stepper: the current step, each reached state's time, and a long step's progress under it. */
import { act, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { HandoffProgressView, HandoffView } from '../../shared/device-api.ts';
import { FORWARD_STATES } from '../../shared/handoff-states.ts';
import { useDeviceEvents } from '../hooks/use-device-events.ts';
import { useProgressStore } from '../stores/progress-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { deviceStatus, handoffIn, historyTo, REQUESTED_AT } from '../test-support/views.ts';
import { HandoffStepper } from './handoff-stepper.tsx';

const progress = (over: Partial<HandoffProgressView> = {}): HandoffProgressView => ({
  handoffId: 'h1',
  sessionId: 's1',
  step: 'fetch',
  label: 'app',
  doneBytes: 12 * 1024 * 1024,
  totalBytes: 40 * 1024 * 1024,
  percent: 45,
  at: REQUESTED_AT + 50,
  ...over,
});

/** The stepper of the sample move, its list found by its accessible name. */
function renderStepper(handoff: HandoffView) {
  const view = render(<HandoffStepper handoff={handoff} />);
  return { ...view, stepper: screen.getByRole('list', { name: /desktop/ }) };
}

/** The element marked as the current step (the one the UI contract names), if any. */
function currentStep(container: HTMLElement): HTMLElement | null {
  return container.querySelector<HTMLElement>('[aria-current="step"]');
}

/** A stepper fed by the real event bridge, as the run view is: the device's pushes reach it through the stores. */
function LiveStepper({ handoff }: { handoff: HandoffView }) {
  useDeviceEvents();
  return <HandoffStepper handoff={handoff} />;
}

describe('the handoff stepper', () => {
  it('is a list named for the device the session moves to', () => {
    const { stepper } = renderStepper(handoffIn('requested'));
    expect(stepper).toHaveAccessibleName(/Moving to desktop/);
  });

  it('shows the current step as aria-current, and only that one', () => {
    for (const state of FORWARD_STATES) {
      const { stepper, unmount } = renderStepper(handoffIn(state));
      expect(stepper.querySelectorAll('[aria-current="step"]'), state).toHaveLength(1);
      // The current step carries the time its state was reached.
      const reachedAt = historyTo(state).at(-1)!.at;
      expect(currentStep(stepper)?.querySelector('time')?.getAttribute('datetime'), state).toBe(new Date(reachedAt).toISOString());
      unmount();
    }
  });

  it('moves the current step forward as the move advances', () => {
    const { stepper, rerender } = renderStepper(handoffIn('target-prepared'));
    const before = currentStep(stepper);
    rerender(<HandoffStepper handoff={handoffIn('source-quiescing')} />);
    const after = currentStep(stepper);
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    expect(before).not.toHaveAttribute('aria-current');
  });

  it('marks no step current once a move is cancelled', () => {
    const cancelled = handoffIn('source-quiescing', { state: 'cancelled' });
    const { stepper } = renderStepper(cancelled);
    expect(currentStep(stepper)).toBeNull();
  });

  it('names the seven states and shows the time of each one reached, and none for those to come', () => {
    const { stepper } = renderStepper(handoffIn('source-relinquished-and-checkpointed'));
    for (const state of FORWARD_STATES) expect(stepper).toHaveTextContent(state);
    const times = [...stepper.querySelectorAll('time')].map((time) => time.getAttribute('datetime'));
    expect(times).toEqual(historyTo('source-relinquished-and-checkpointed').map((entry) => new Date(entry.at).toISOString()));
  });

  it("shows a long step's progress under the current step as a progress bar with its words", () => {
    act(() => useProgressStore.getState().apply(progress()));
    const { stepper } = renderStepper(handoffIn('target-prepared'));
    const bar = within(currentStep(stepper)!).getByRole('progressbar', { name: 'Fetching app' });
    expect(bar).toHaveAttribute('aria-valuenow', '45');
    expect(bar).toHaveAttribute('aria-valuetext', 'Fetching app — 12.0 MiB of 40.0 MiB, 45%');
    expect(screen.getAllByRole('progressbar')).toHaveLength(1);
  });

  it('shows an indeterminate bar while no percent is known', () => {
    act(() => useProgressStore.getState().apply(progress({ step: 'clone', doneBytes: null, totalBytes: null, percent: null })));
    const { stepper } = renderStepper(handoffIn('target-prepared'));
    const bar = within(currentStep(stepper)!).getByRole('progressbar', { name: 'Cloning app' });
    expect(bar).not.toHaveAttribute('aria-valuenow');
    expect(bar).toHaveAttribute('aria-valuetext', 'Cloning app…');
  });

  it("shows the device's progress reports under the current step, and drops them when the state moves on", async () => {
    fakeDevice.answerReload(deviceStatus());
    const requested = handoffIn('target-prepared');
    const { rerender } = render(<LiveStepper handoff={requested} />);
    await act(async () => fakeDevice.emit('handoffChanged', requested));
    await act(async () => fakeDevice.emit('handoffProgress', progress({ step: 'upload', label: 'checkpoint', percent: 80 })));
    expect(screen.getByRole('progressbar', { name: 'Uploading checkpoint' })).toHaveAttribute('aria-valuenow', '80');

    const quiescing = handoffIn('source-quiescing');
    await act(async () => fakeDevice.emit('handoffChanged', quiescing));
    rerender(<LiveStepper handoff={quiescing} />);
    expect(screen.queryByRole('progressbar')).toBeNull();
  });
});
