/**
 * A move's protocol facts behind a closed "Details" disclosure: the seven states with the time each
 * was reached, the cancel code with the device's own words, the resume path and the drift codes —
 * for tools, tests and the curious, never the headline.
 */
import type { HandoffView } from '../../shared/device-api.ts';
import { FORWARD_STATES, reachedAt, type HandoffState } from '../../shared/handoff-states.ts';
import { formatTime } from '../model/format.ts';
import { formatElapsedTime } from '../model/move-words.ts';

/** Renders the Details disclosure of `handoff`. */
export function MoveDetails({ handoff }: { handoff: HandoffView }) {
  const start = reachedAt(handoff.history, 'requested') ?? handoff.history[0]?.at;
  const states: HandoffState[] = handoff.state === 'cancelled' ? [...FORWARD_STATES, 'cancelled'] : [...FORWARD_STATES];
  return (
    <details className="move-details">
      <summary>Details</summary>
      <ol className="state-list" aria-label="Handoff states">
        {states.map((state) => {
          const at = reachedAt(handoff.history, state);
          const reached = at === undefined ? '' : ' state-row--reached';
          return (
            <li key={state} className={`state-row${reached}${state === handoff.state ? ' state-row--current' : ''}`} data-state={state}>
              <code className="state-name">{state}</code>
              {at !== undefined && (
                <time dateTime={new Date(at).toISOString()} data-at={at}>
                  {formatTime(at)}
                  {start !== undefined && ` · +${formatElapsedTime(at - start)}`}
                </time>
              )}
            </li>
          );
        })}
      </ol>
      <dl className="detail-facts">
        {handoff.cancelReason && (
          <div>
            <dt>Reason</dt>
            <dd>
              <code>{handoff.cancelReason.code}</code> {handoff.cancelReason.message}
            </dd>
          </div>
        )}
        {handoff.blockers.map((blocker, index) => (
          <div key={`${blocker.code}-${index}`}>
            <dt>Blocker</dt>
            <dd>
              <code>{blocker.code}</code> {blocker.message}
            </dd>
          </div>
        ))}
        {handoff.resumePath && (
          <div>
            <dt>Resume path</dt>
            <dd>
              <code>{handoff.resumePath}</code>
            </dd>
          </div>
        )}
        {handoff.driftWarnings.length > 0 && (
          <div>
            <dt>Drift</dt>
            <dd>
              {handoff.driftWarnings.map((warning) => (
                <code key={warning.code + warning.detail}>{warning.code} </code>
              ))}
            </dd>
          </div>
        )}
        <div>
          <dt>Move</dt>
          <dd>
            <code>{handoff.id}</code>, from generation {handoff.generation}
          </dd>
        </div>
      </dl>
    </details>
  );
}
