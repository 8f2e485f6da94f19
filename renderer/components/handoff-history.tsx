/** The session's handoff history: every move, newest first, how it ended, when, and whether its checkpoint is kept; codes in Details. */
import { useEffect, useId } from 'react';
import type { HandoffView } from '../../shared/device-api.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { formatDay } from './format.ts';
import { handoffCodes, handoffOutcome } from './session-state.ts';

/** The moves newest first, by when each was requested. */
function newestFirst(history: HandoffView[]): HandoffView[] {
  return [...history].sort((a, b) => (b.history[0]?.at ?? 0) - (a.history[0]?.at ?? 0));
}

/** Renders the history region of one session, loaded once and kept live by handoff events. */
export function HandoffHistory({ sessionId }: { sessionId: string }) {
  const headingId = useId();
  const history = useHandoffsStore((state) => state.history[sessionId]);
  const loadHistory = useHandoffsStore((state) => state.loadHistory);
  useEffect(() => {
    loadHistory(sessionId).catch(() => undefined);
  }, [sessionId, loadHistory]);

  return (
    <section className="panel history" aria-labelledby={headingId}>
      <h2 id={headingId} className="panel-title">
        Handoff history
      </h2>
      {history === undefined && <p className="muted">Loading…</p>}
      {history?.length === 0 && <p className="muted empty">This session has not moved yet.</p>}
      {history && history.length > 0 && (
        <ol className="history-list">
          {newestFirst(history).map((handoff) => {
            const at = handoff.history[0]?.at;
            return (
              <li key={handoff.id} className={`history-item history-item--${handoff.state}`}>
                <span className="history-route">
                  {handoff.sourceName} → {handoff.targetName}
                </span>
                <span className="history-outcome">{handoffOutcome(handoff)}</span>
                {handoff.state === 'completed' && !handoff.checkpointKept && (
                  <span className="muted history-collected">checkpoint no longer kept</span>
                )}
                {at !== undefined && (
                  <time className="muted" dateTime={new Date(at).toISOString()}>
                    {formatDay(at)}
                  </time>
                )}
                <details className="move-details history-details">
                  <summary>Details</summary>
                  {handoffCodes(handoff).map((code) => (
                    <code key={code}>{code} </code>
                  ))}
                </details>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
