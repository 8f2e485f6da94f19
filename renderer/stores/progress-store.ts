/**
 * How far the long step of each running move has got (handoffProgress events), for the stepper. A
 * report belongs to the state its handoff was in when it came: a state change clears it, so the
 * stepper never shows one step's progress under the next. The first report of each kind of long
 * part is remembered, so a step that a long part begins early (the upload while pausing) has a start.
 */
import { create } from 'zustand';
import type { HandoffProgressView, HandoffView } from '../../shared/device-api.ts';
import { isTerminal } from '../../shared/handoff-states.ts';

interface ProgressState {
  /** The latest report of each handoff, while its state has not changed since. */
  progress: Record<string, HandoffProgressView | undefined>;
  /** When the kind of long part the latest report is of first reported (its `at`), per handoff. */
  since: Record<string, { step: HandoffProgressView['step']; at: number } | undefined>;
  /** The state each handoff was last seen in. */
  states: Record<string, HandoffView['state'] | undefined>;
  apply(report: HandoffProgressView): void;
  handoffChanged(handoff: Pick<HandoffView, 'id' | 'state'>): void;
}

export const useProgressStore = create<ProgressState>()((set) => ({
  progress: {},
  since: {},
  states: {},
  apply: (report) =>
    set((state) => {
      if (isTerminal(state.states[report.handoffId] ?? 'requested')) return state;
      const earlier = state.since[report.handoffId];
      const since = earlier?.step === report.step ? earlier : { step: report.step, at: report.at };
      return { progress: { ...state.progress, [report.handoffId]: report }, since: { ...state.since, [report.handoffId]: since } };
    }),
  handoffChanged: (handoff) =>
    set((state) => {
      if (state.states[handoff.id] === handoff.state) return state;
      const { [handoff.id]: _cleared, ...progress } = state.progress;
      return { progress, states: { ...state.states, [handoff.id]: handoff.state } };
    }),
}));
