/**
 * The blocked move's `alert`: headed "Handoff blocked" with each blocker (its sentence, fix and
 * action in place) and "Check again", which tries the move again; once nothing blocks it, a plain
 * "Ready to move" with "Move now". Each action says beside it that it runs as the user's own git
 * (blocker-item.tsx). Off the owner the fixes are named for the owner, where they run.
 */
import { useId } from 'react';
import { useHandoffsStore, type BlockedMove } from '../stores/handoffs-store.ts';
import { BlockerItem } from './blocker-item.tsx';
import { blockerSummary } from '../model/readiness-words.ts';

/**
 * Renders the alert for the blocked move `blocked` of `sessionId`. `ownerName`: set off the owner
 * (a Move here it refused), where each fix is done on the owner and Check again asks it again.
 */
export function BlockedAlert({
  sessionId,
  blocked,
  ownerName = null,
}: {
  sessionId: string;
  blocked: BlockedMove;
  ownerName?: string | null;
}) {
  const headingId = useId();
  const checkAgain = useHandoffsStore((state) => state.checkAgain);
  const dismiss = useHandoffsStore((state) => state.dismissBlocked);
  const pending = useHandoffsStore((state) => state.sessions[sessionId]?.pending);
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
              {ownerName !== null && (
                <>
                  {' '}
                  The session runs on <strong>{ownerName}</strong>: make each fix there, where its files are.
                </>
              )}
            </>
          )}
        </p>
      </div>
      {!ready && (
        <ul className="blocker-list">
          {blockers.map((blocker, index) => (
            <BlockerItem
              key={`${blocker.code}-${blocker.repo ?? ''}-${index}`}
              sessionId={sessionId}
              blocker={blocker}
              shown={blocked}
              actsOn={ownerName}
            />
          ))}
        </ul>
      )}
      {blocked.actionError && <p className="form-error">{blocked.actionError}</p>}
      <div className="blocked-actions">
        <button
          type="button"
          className="button button--primary"
          disabled={pending !== undefined}
          onClick={() => void checkAgain(sessionId, blocked, ownerName === null)}
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
