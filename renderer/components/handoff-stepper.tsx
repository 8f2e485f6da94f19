/**
 * The seven handoff states in order, the current one marked as the step, each reached one timed; under
 * the current step, how far its long part (fetch, clone, upload, download, import) has got.
 */
import type { HandoffProgressView, HandoffView } from '../../shared/device-api.ts';
import { FORWARD_STATES, reachedAt, stepIndex } from '../../shared/handoff-states.ts';
import { progressLabel, progressText } from '../../shared/progress-text.ts';
import { useLingering } from '../hooks/use-lingering.ts';
import { useProgressStore } from '../stores/progress-store.ts';
import { formatClock, formatElapsed } from './format.ts';

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

/** Renders the stepper of `handoff`. */
export function HandoffStepper({ handoff }: { handoff: HandoffView }) {
  const current = stepIndex(handoff.state);
  // A quick move never animates: animation frames cost composites that, with software rendering on
  // a busy machine, delayed the strip's own updates. Only a step that waits gets the pulse.
  const waiting = useLingering(handoff.state, WAITING_AFTER_MS);
  const start = reachedAt(handoff.history, 'requested') ?? handoff.history[0]?.at ?? null;
  const progress = useProgressStore((state) => state.progress[handoff.id]);
  return (
    <ol className="stepper" aria-label={`Moving to ${handoff.targetName}`}>
      {FORWARD_STATES.map((state, index) => {
        const reached = reachedAt(handoff.history, state);
        const phase = index < current ? 'done' : index === current ? 'current' : 'pending';
        return (
          <li
            key={state}
            className={`step step--${phase}${index === current && waiting ? ' step--waiting' : ''}${index === current && progress ? ' step--progress' : ''}`}
            aria-current={index === current ? 'step' : undefined}
            data-state={state}
          >
            <span className="step-marker" aria-hidden="true" />
            <span className="step-name">{state}</span>
            <span className="step-time">
              {reached !== undefined && (
                <time
                  dateTime={new Date(reached).toISOString()}
                  data-at={reached}
                  title={start !== null ? `${formatElapsed(reached - start)} after the request` : undefined}
                >
                  {formatClock(reached)}
                </time>
              )}
            </span>
            {index === current && progress && <StepProgress progress={progress} />}
          </li>
        );
      })}
    </ol>
  );
}
