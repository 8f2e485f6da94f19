/**
 * A move in plain words, pure and testable: the five human steps the seven states fold into, what a
 * step that waits is waiting for (and what to check), why a move stopped, and what was kept. The
 * state names and codes themselves stay in Details (move-details.tsx).
 */
import type { HandoffProgressView, HandoffView } from '../../shared/device-api.ts';
import { reachedAt, type HandoffState } from '../../shared/handoff-states.ts';
import { blockerSummary } from './readiness-words.ts';

export type StepKey = 'prepare' | 'pause' | 'hand-over' | 'resume' | 'done';

export interface HumanStep {
  key: StepKey;
  label: string;
  /** The states during which this step is the one under way. */
  states: readonly HandoffState[];
}

type Names = Pick<HandoffView, 'sourceName' | 'targetName'>;

/** The steps of a move from `sourceName` to `targetName`, in order. */
export function humanSteps({ sourceName, targetName }: Names): HumanStep[] {
  return [
    { key: 'prepare', label: `Preparing ${targetName}`, states: ['requested'] },
    { key: 'pause', label: `Pausing on ${sourceName}`, states: ['target-prepared', 'source-quiescing'] },
    { key: 'hand-over', label: 'Handing over', states: ['source-relinquished-and-checkpointed'] },
    { key: 'resume', label: `Resuming on ${targetName}`, states: ['ownership-transferred', 'target-activating'] },
    { key: 'done', label: 'Done', states: ['completed'] },
  ];
}

/** The step a long part belongs to: the target's fetch or clone prepares it, the checkpoint's upload and download hand over, the import resumes. */
const PROGRESS_STEP: Record<HandoffProgressView['step'], StepKey> = {
  fetch: 'prepare',
  clone: 'prepare',
  upload: 'hand-over',
  download: 'hand-over',
  import: 'resume',
};

/** The index of the step a kind of long part belongs to. */
export function progressStepIndex(steps: HumanStep[], kind: HandoffProgressView['step']): number {
  return steps.findIndex((step) => step.key === PROGRESS_STEP[kind]);
}

/** The index of the step under way: the state's, or later when a long part of a later step has begun (the upload while pausing). */
export function currentStepIndex(steps: HumanStep[], state: HandoffState, progress: HandoffProgressView | undefined): number {
  const byState = steps.findIndex((step) => step.states.includes(state));
  if (byState < 0) return -1;
  return Math.max(byState, progress ? progressStepIndex(steps, progress.step) : -1);
}

/** Whether a long part's progress belongs under `step`. */
export function progressBelongsTo(step: HumanStep, progress: HandoffProgressView): boolean {
  return PROGRESS_STEP[progress.step] === step.key;
}

/**
 * When each step began: the first of its states reached, or earlier when a long part of it began
 * before them (`early`: the first report of the upload, while the source was still pausing); undefined
 * for a step not begun.
 */
export function stepStarts(steps: HumanStep[], handoff: HandoffView, early: { index: number; at: number } | null): (number | undefined)[] {
  return steps.map((step, index) => {
    const times = step.states.map((state) => reachedAt(handoff.history, state)).filter((at): at is number => at !== undefined);
    if (early?.index === index) times.push(early.at);
    return times.length > 0 ? Math.min(...times) : undefined;
  });
}

/** What a step that has waited a while waits for, and what to check; null when it is doing work it reports itself. */
export function waitingFor(step: HumanStep, state: HandoffState, names: Names): string | null {
  const { sourceName, targetName } = names;
  switch (step.key) {
    case 'prepare':
      return `Waiting for ${targetName} to answer — is Baton running there and online?`;
    case 'pause':
      return state === 'source-quiescing'
        ? `Waiting for the agent's turn to end on ${sourceName}; a turn that runs on is interrupted.`
        : `Waiting for ${sourceName} to pause the session — is Baton running there and online?`;
    case 'hand-over':
      return `Waiting for ${targetName} to take the session — is Baton running there and online?`;
    case 'resume':
      return `Waiting for the agent to start on ${targetName} — is Baton still running there?`;
    default:
      return null;
  }
}

/** Why a cancelled move stopped, in one sentence with what to check; the code and the device's own words are in Details. */
export function cancelSentence(handoff: HandoffView): string {
  const { targetName, sourceName, cancelReason } = handoff;
  const code = cancelReason?.code ?? '';
  if (code === 'user_cancelled') return `The move to ${targetName} was cancelled.`;
  if (code === 'target_timeout') {
    const prepared = reachedAt(handoff.history, 'target-prepared') !== undefined;
    return `${targetName} did not ${prepared ? 'take the session' : 'get ready'} in time — check that Baton is running there and online, then try again.`;
  }
  if (code === 'device_revoked') return `A device of this move was removed from the account, so the move stopped.`;
  if (code === 'checkpoint_too_large')
    return `The session's checkpoint is larger than the sync backend accepts; ask whoever runs it to raise the limit.`;
  // A target's refusal can carry blockers of its own (its checkout there): they are the target's, not the source's.
  if (code.startsWith('target_') && cancelReason) return `${targetName} could not take the session: ${cancelReason.message}`;
  if (handoff.blockers.length > 0)
    return `Something changed on ${sourceName} while the move was prepared: ${blockerSummary(handoff.blockers)}.`;
  return cancelReason?.message ? cancelReason.message : `The move to ${targetName} stopped.`;
}

/** What a move cancelled before the transfer kept. */
export function keptSentence(handoff: HandoffView): string {
  return `The session stays on ${handoff.sourceName}; nothing was lost.`;
}

/** A plain sentence for the resume path a completed move took. */
export function resumeSentence(path: HandoffView['resumePath']): string {
  if (path === 'checkpoint-import') return 'The agent continued with its full state.';
  if (path === 'summary-continuation') return 'The agent continued from a summary of what happened before.';
  return 'How the agent continued was not recorded.';
}

/** An elapsed time a person reads: "0.4 s", "12 s", "3 min 05 s". */
export function formatElapsedTime(ms: number): string {
  const clamped = Math.max(0, ms);
  if (clamped < 10_000) return `${(clamped / 1000).toFixed(1)} s`;
  const seconds = Math.round(clamped / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}
