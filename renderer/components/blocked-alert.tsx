/**
 * The blocked move's `alert`: headed "Handoff blocked" with each blocker (its sentence, fix and
 * action in place) and "Check again", which tries the move again; once nothing blocks it, a plain
 * "Ready to move" with "Move now". Each action says beside it that it runs as the user's own git
 * (blocker-item.tsx).
 */
import { useId } from 'react';
import { useHandoffsStore, type BlockedMove } from '../stores/handoffs-store.ts';
import { BlockerItem } from './blocker-item.tsx';
import { blockerSummary } from './readiness-words.ts';

/** Renders the alert for the blocked move `blocked` of `sessionId`. */
export function BlockedAlert({ sessionId, blocked }: { sessionId: string; blocked: BlockedMove }) {
  const headingId = useId();
  const checkAgain = useHandoffsStore((state) => state.checkAgain);
  const dismiss = useHandoffsStore((state) => state.dismissBlocked);
  const pending = useHandoffsStore((state) => state.pending[sessionId]);
  const { blockers } = blocked.report;
  const ready = blockers.length === 0;
  return (
    <section className={`blocked-alert${ready ? ' blocked-alert--ready' : ''}`} role="alert" aria-labelledby={headingId}>
      <div className="blocked-head">
        <h2 id={headingId}>{ready ? 'Ready to move' : 'Handoff blocked'}</h2>
        <p>
          {ready ? (
            <>
              Nothing blocks moving it to <strong>{blocked.targetName}</strong> now.
            </>
          ) : (
            <>
              Moving it to <strong>{blocked.targetName}</strong> stopped before anything moved: {blockerSummary(blockers)}. Fix each item,
              then check again.
            </>
          )}
        </p>
      </div>
      {!ready && (
        <ul className="blocker-list">
          {blockers.map((blocker, index) => (
            <BlockerItem key={`${blocker.code}-${blocker.repo ?? ''}-${index}`} sessionId={sessionId} blocker={blocker} shown={blocked} />
          ))}
        </ul>
      )}
      {blocked.actionError && <p className="form-error">{blocked.actionError}</p>}
      <div className="blocked-actions">
        <button
          type="button"
          className="button button--primary"
          disabled={pending !== undefined}
          onClick={() => void checkAgain(sessionId, blocked)}
        >
          {pending === 'move' ? 'Checking…' : ready ? 'Move now' : 'Check again'}
        </button>
        <button type="button" className="button button--quiet" onClick={() => dismiss(sessionId, blocked)}>
          Dismiss
        </button>
      </div>
    </section>
  );
}
