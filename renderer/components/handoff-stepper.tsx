/** The seven handoff states in order, the current one marked as the step, each reached one timed. */
import type { HandoffView } from '../../shared/device-api.ts';
import { FORWARD_STATES, stepIndex } from '../../shared/handoff-states.ts';
import { formatClock, formatElapsed } from './format.ts';

/** Renders the stepper of `handoff`. */
export function HandoffStepper({ handoff }: { handoff: HandoffView }) {
  const current = stepIndex(handoff.state);
  const start = handoff.history.find((entry) => entry.state === 'requested')?.at ?? handoff.history[0]?.at ?? null;
  return (
    <ol className="stepper" aria-label={`Moving to ${handoff.targetName}`}>
      {FORWARD_STATES.map((state, index) => {
        const reached = handoff.history.find((entry) => entry.state === state);
        const phase = index < current ? 'done' : index === current ? 'current' : 'pending';
        return (
          <li key={state} className={`step step--${phase}`} aria-current={index === current ? 'step' : undefined} data-state={state}>
            <span className="step-marker" aria-hidden="true" />
            <span className="step-name">{state}</span>
            <span className="step-time">
              {reached && (
                <time
                  dateTime={new Date(reached.at).toISOString()}
                  data-at={reached.at}
                  title={start !== null ? `${formatElapsed(reached.at - start)} after the request` : undefined}
                >
                  {formatClock(reached.at)}
                </time>
              )}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
