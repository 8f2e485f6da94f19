/**
 * The steps of a move: five human steps, the current one marked, each with its elapsed time; a long
 * part's progress under the step it belongs to; what a waiting step waits for; the seven states in Details.
 */
import { act, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HandoffProgressView, HandoffView } from '../../shared/device-api.ts';
import { FORWARD_STATES, type HandoffState } from '../../shared/handoff-states.ts';
import { useDeviceEvents } from '../hooks/use-device-events.ts';
import { useProgressStore } from '../stores/progress-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { visibleText } from '../test-support/visible-text.ts';
import { deviceStatus, handoffIn, historyTo, REQUESTED_AT } from '../test-support/views.ts';
import { HandoffStepper, WAIT_HINT_MS } from './handoff-stepper.tsx';

const STEPS = ['Preparing desktop', 'Pausing on laptop', 'Handing over', 'Resuming on desktop', 'Done'];

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

/** The clock stands `ms` after the sample move's state `state` was reached. */
function clockAfter(state: HandoffState, ms: number): void {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  vi.setSystemTime(historyTo(state).at(-1)!.at + ms);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the handoff stepper', () => {
  it('is a list named for the device the session moves to, of five steps in plain words', () => {
    const { stepper } = renderStepper(handoffIn('requested'));
    expect(stepper).toHaveAccessibleName(/Moving to desktop/);
    expect(
      within(stepper)
        .getAllByRole('listitem')
        .map((item) => item.querySelector('.step-name')?.textContent),
    ).toEqual(STEPS);
  });

  it('marks the step each state belongs to as current, and only that one, with the state and its time', () => {
    const expected: Record<string, string> = {
      requested: 'Preparing desktop',
      'target-prepared': 'Pausing on laptop',
      'source-quiescing': 'Pausing on laptop',
      'source-relinquished-and-checkpointed': 'Handing over',
      'ownership-transferred': 'Resuming on desktop',
      'target-activating': 'Resuming on desktop',
      completed: 'Done',
    };
    for (const state of FORWARD_STATES) {
      const { stepper, unmount } = renderStepper(handoffIn(state));
      expect(stepper.querySelectorAll('[aria-current="step"]'), state).toHaveLength(1);
      const step = currentStep(stepper)!;
      expect(step, state).toHaveTextContent(expected[state]!);
      expect(step.getAttribute('data-state'), state).toBe(state);
      expect(step.getAttribute('data-at'), state).toBe(String(historyTo(state).at(-1)!.at));
      unmount();
    }
  });

  it('moves the current step forward as the move advances', () => {
    const { stepper, rerender } = renderStepper(handoffIn('target-prepared'));
    const before = currentStep(stepper);
    rerender(<HandoffStepper handoff={handoffIn('source-relinquished-and-checkpointed')} />);
    const after = currentStep(stepper);
    expect(after).toHaveTextContent('Handing over');
    expect(before).not.toHaveAttribute('aria-current');
  });

  it('marks no step current once a move is cancelled', () => {
    const { stepper } = renderStepper(handoffIn('source-quiescing', { state: 'cancelled' }));
    expect(currentStep(stepper)).toBeNull();
  });

  it('shows how long each finished step took and how long the current one has run, in seconds', () => {
    clockAfter('source-relinquished-and-checkpointed', 2000);
    const { stepper } = renderStepper(handoffIn('source-relinquished-and-checkpointed'));
    const times = within(stepper)
      .getAllByRole('listitem')
      .map((item) => item.querySelector('.step-time')?.textContent);
    // Preparing: requested → target-prepared (100 ms); pausing: target-prepared → relinquished (200 ms); handing over: 2 s so far.
    expect(times).toEqual(['0.1 s', '0.2 s', '2.0 s', '', '']);
  });

  it('keeps the state names, codes and times to the millisecond out of the steps, and puts the seven states in a closed Details', () => {
    const { container, stepper } = renderStepper(handoffIn('source-quiescing'));
    for (const state of FORWARD_STATES) expect(visibleText(container)).not.toContain(state);
    const details = container.querySelector('details')!;
    expect(details).not.toHaveAttribute('open');
    expect(within(details).getByText('Details')).toBeInTheDocument();
    for (const state of FORWARD_STATES) expect(details).toHaveTextContent(state);
    const reached = [...details.querySelectorAll('time')].map((time) => time.getAttribute('datetime'));
    expect(reached).toEqual(historyTo('source-quiescing').map((entry) => new Date(entry.at).toISOString()));
    expect(stepper).not.toHaveTextContent(/\d\d:\d\d:\d\d\.\d{3}/);
  });

  it('says what a step that has waited a few seconds waits for, and what to check', () => {
    clockAfter('requested', WAIT_HINT_MS + 500);
    const { stepper } = renderStepper(handoffIn('requested'));
    expect(currentStep(stepper)).toHaveTextContent('Waiting for desktop to answer — is Baton running there and online?');
  });

  it('says nothing of waiting while a step is young', () => {
    clockAfter('requested', 1000);
    const { stepper } = renderStepper(handoffIn('requested'));
    expect(currentStep(stepper)).not.toHaveTextContent(/Waiting/);
  });

  it('says it waits for the source to pause, or for the take-over, at those steps', () => {
    clockAfter('target-prepared', WAIT_HINT_MS + 500);
    const paused = renderStepper(handoffIn('target-prepared'));
    expect(currentStep(paused.stepper)).toHaveTextContent('Waiting for laptop to pause the session');
    paused.unmount();
    clockAfter('source-relinquished-and-checkpointed', WAIT_HINT_MS + 500);
    const { stepper } = renderStepper(handoffIn('source-relinquished-and-checkpointed'));
    expect(currentStep(stepper)).toHaveTextContent('Waiting for desktop to take the session');
  });

  it("shows a long step's progress under the step it belongs to, as a progress bar with its words", () => {
    act(() => useProgressStore.getState().apply(progress()));
    const { stepper } = renderStepper(handoffIn('requested'));
    const step = currentStep(stepper)!;
    expect(step).toHaveTextContent('Preparing desktop');
    const bar = within(step).getByRole('progressbar', { name: 'Fetching app' });
    expect(bar).toHaveAttribute('aria-valuenow', '45');
    expect(bar).toHaveAttribute('aria-valuetext', 'Fetching app — 12.0 MiB of 40.0 MiB, 45%');
    expect(screen.getAllByRole('progressbar')).toHaveLength(1);
  });

  it('puts the checkpoint upload under Handing over, not under the pause it happens in', () => {
    act(() => useProgressStore.getState().apply(progress({ step: 'upload', label: 'checkpoint', percent: 30 })));
    const { stepper } = renderStepper(handoffIn('source-quiescing'));
    const step = currentStep(stepper)!;
    expect(step).toHaveTextContent('Handing over');
    expect(within(step).getByRole('progressbar', { name: 'Uploading checkpoint' })).toHaveAttribute('aria-valuenow', '30');
  });

  it('shows an indeterminate bar while no percent is known', () => {
    act(() => useProgressStore.getState().apply(progress({ step: 'clone', doneBytes: null, totalBytes: null, percent: null })));
    const { stepper } = renderStepper(handoffIn('requested'));
    const bar = within(currentStep(stepper)!).getByRole('progressbar', { name: 'Cloning app' });
    expect(bar).not.toHaveAttribute('aria-valuenow');
    expect(bar).toHaveAttribute('aria-valuetext', 'Cloning app…');
  });

  it("shows the device's progress reports under the current step, and drops them when the state moves on", async () => {
    fakeDevice.answerReload(deviceStatus());
    const relinquished = handoffIn('source-relinquished-and-checkpointed');
    const { rerender } = render(<LiveStepper handoff={relinquished} />);
    await act(async () => fakeDevice.emit('handoffChanged', relinquished));
    await act(async () => fakeDevice.emit('handoffProgress', progress({ step: 'download', label: 'checkpoint', percent: 80 })));
    expect(screen.getByRole('progressbar', { name: 'Downloading checkpoint' })).toHaveAttribute('aria-valuenow', '80');

    const activating = handoffIn('target-activating');
    await act(async () => fakeDevice.emit('handoffChanged', activating));
    rerender(<LiveStepper handoff={activating} />);
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('shows the two devices, the session between them', () => {
    renderStepper(handoffIn('source-quiescing'));
    expect(screen.getByRole('img', { name: /from laptop to desktop; laptop holds it now/ })).toBeInTheDocument();
  });
});
