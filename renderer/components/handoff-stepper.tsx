/**
 * A running move in plain words: the two devices with the session passing between them, then five
 * human steps (Preparing desktop · Pausing on laptop · Handing over · Resuming on desktop · Done),
 * each with its elapsed time; the one under way marked as the step, its long part's progress bar
 * under it, and, once it has waited a while, what it waits for and what to check. The seven states
 * and their times are in Details.
 */
import type { HandoffProgressView, HandoffView } from '../../shared/device-api.ts';
import { reachedAt } from '../../shared/handoff-states.ts';
import { progressLabel, progressText } from '../../shared/progress-text.ts';
import { useLingering } from '../hooks/use-lingering.ts';
import { useNow } from '../hooks/use-now.ts';
import { useProgressStore } from '../stores/progress-store.ts';
import { MoveDetails } from './move-details.tsx';
import { MovePassage } from './move-passage.tsx';
import {
  currentStepIndex,
  formatElapsedTime,
  humanSteps,
  progressBelongsTo,
  progressStepIndex,
  stepStarts,
  waitingFor,
} from '../model/move-words.ts';

/** A progress bar (indeterminate until a percent is known) and its words: "Fetching app — 12.0 MiB, 45%". */
function StepProgress({ progress }: { progress: HandoffProgressView }) {
  const text = progressText(progress);
  const percent = progress.percent === null ? undefined : Math.round(progress.percent);
  return (
    <div className="step-progress">
      <progress
        className="step-progress-bar"
        max={100}
        value={percent}
        aria-label={progressLabel(progress)}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={text}
      />
      <span className="step-progress-text" aria-hidden="true">
        {text}
      </span>
    </div>
  );
}

/** How long a step stays current before its marker starts to breathe. */
const WAITING_AFTER_MS = 1000;
/** How long a step may wait, doing nothing it reports, before it says what it waits for. */
export const WAIT_HINT_MS = 5000;

/** Renders the steps of `handoff` (a move under way). */
export function HandoffStepper({ handoff }: { handoff: HandoffView }) {
  const steps = humanSteps(handoff);
  const progress = useProgressStore((state) => state.progress[handoff.id]);
  const since = useProgressStore((state) => state.since[handoff.id]);
  const current = currentStepIndex(steps, handoff.state, progress);
  const starts = stepStarts(steps, handoff, since ? { index: progressStepIndex(steps, since.step), at: since.at } : null);
  const now = useNow(current >= 0);
  // A quick move never animates: animation frames cost composites that, with software rendering on
  // a busy machine, delayed the strip's own updates. Only a step that waits gets the pulse.
  const stepKey = `${handoff.state}|${current}`;
  const waiting = useLingering(stepKey, WAITING_AFTER_MS);
  const quiet = useLingering(`${stepKey}|${progress?.at ?? ''}`, WAIT_HINT_MS);
  const currentStart = starts[current];
  const stalled = progress === undefined && (quiet || (currentStart !== undefined && now - currentStart >= WAIT_HINT_MS));
  return (
    <div className="move-progress">
      <MovePassage handoff={handoff} step={current} steps={steps.length} />
      <ol className="stepper" aria-label={`Moving to ${handoff.targetName}`}>
        {steps.map((step, index) => {
          const phase = index < current ? 'done' : index === current ? 'current' : 'pending';
          const start = starts[index];
          const end = phase === 'done' ? starts.slice(index + 1).find((at) => at !== undefined) : undefined;
          const elapsed = start === undefined ? null : phase === 'current' ? now - start : end !== undefined ? end - start : null;
          const hint = phase === 'current' && stalled ? waitingFor(step, handoff.state, handoff) : null;
          const here = phase === 'current' ? { 'data-state': handoff.state, 'data-at': reachedAt(handoff.history, handoff.state) } : {};
          return (
            <li
              key={step.key}
              className={`step step--${phase}${phase === 'current' && waiting ? ' step--waiting' : ''}`}
              aria-current={phase === 'current' ? 'step' : undefined}
              data-step={step.key}
              {...here}
            >
              <span className="step-marker" aria-hidden="true" />
              <span className="step-name">{step.label}</span>
              <span className="step-time">{elapsed !== null && formatElapsedTime(elapsed)}</span>
              {phase === 'current' && progress && progressBelongsTo(step, progress) && <StepProgress progress={progress} />}
              {hint && (
                <p className="step-wait" role="status">
                  {hint}
                </p>
              )}
            </li>
          );
        })}
      </ol>
      <MoveDetails handoff={handoff} />
    </div>
  );
}
