/**
 * How the session's last move ended, under the ownership headline, while that still says where the
 * session runs (model/run-panels.ts lastMovePanel): completed (from where, when, how the agent
 * continued, in which folder, what changes it carried and where the source keeps its copy, and the drift found on arrival — said of the arrival, and only while no
 * blocked move says otherwise), cancelled before the transfer (why, what was kept, and Try again on
 * the device that still holds it), or moved with its activation failed. Codes and the seven states
 * are in Details.
 */
import { useState } from 'react';
import type { HandoffView, SessionView } from '../../shared/device-api.ts';
import { reachedAt } from '../../shared/handoff-states.ts';
import { errorMessage } from '../model/error-words.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { formatDuration, formatTime } from '../model/format.ts';
import { MoveDetails } from './move-details.tsx';
import { carriedSentences } from '../model/carry-words.ts';
import { cancelSentence, keptSentence, resumeSentence } from '../model/move-words.ts';
import { stampOf, type LastMovePanel } from '../model/run-panels.ts';

interface LastMoveProps {
  session: SessionView;
  panel: LastMovePanel;
  /** Why acts that need the backend are disabled now, or null. */
  backendReason: string | null;
}

function failedTitle(handoff: HandoffView, arrivedHere: boolean, attention: boolean): string {
  if (!arrivedHere) return `Moved to ${handoff.targetName}, whose activation failed.`;
  return attention
    ? `Moved here from ${handoff.sourceName}; activation failed.`
    : `Moved here from ${handoff.sourceName}; activation failed, then succeeded on retry.`;
}

/** Try again: the same move, from the device that still holds the session. */
function TryAgain({ session, handoff, backendReason }: { session: SessionView; handoff: HandoffView; backendReason: string | null }) {
  const startMove = useHandoffsStore((state) => state.startMove);
  const [pending, setPending] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  async function retry() {
    setPending(true);
    setRefused(null);
    try {
      const outcome = await startMove(session.id, handoff.targetDeviceId, handoff.targetName, stampOf(session));
      if (outcome.kind === 'refused') setRefused(outcome.message);
    } catch (error) {
      setRefused(errorMessage(error));
    } finally {
      setPending(false);
    }
  }
  return (
    <div className="try-again">
      <button type="button" className="button" disabled={pending || backendReason !== null} onClick={() => void retry()}>
        {pending ? 'Checking…' : 'Try again'}
      </button>
      {(refused ?? backendReason) && <p className="form-error">{refused ?? backendReason}</p>}
    </div>
  );
}

function Completed({ session, panel }: { session: SessionView; panel: LastMovePanel }) {
  const { handoff, arrivedHere } = panel;
  const requested = reachedAt(handoff.history, 'requested');
  const completed = reachedAt(handoff.history, 'completed');
  return (
    <div className="last-move last-move--completed" role="status">
      <p>
        <strong>
          {arrivedHere ? `Moved here from ${handoff.sourceName}.` : `Moved from ${handoff.sourceName} to ${handoff.targetName}.`}
        </strong>
        {completed !== undefined && (
          <>
            {' '}
            <span className="muted">
              Completed at{' '}
              <time dateTime={new Date(completed).toISOString()} data-at={completed} data-state="completed">
                {formatTime(completed)}
              </time>
              {requested !== undefined && `, ${formatDuration(completed - requested)} after the request`}.
            </span>
          </>
        )}
      </p>
      <p>{resumeSentence(handoff.resumePath)}</p>
      {handoff.carried &&
        carriedSentences(handoff.carried, arrivedHere, handoff.sourceName).map((sentence) => <p key={sentence}>{sentence}</p>)}
      {arrivedHere && session.workspace && (
        <p>
          It runs in <code className="folder">{session.workspace}</code> on this device.
        </p>
      )}
      {handoff.resumeNote && <p className="muted">{handoff.resumeNote}</p>}
      {panel.drift === 'differs' && (
        <div className="drift">
          <p className="drift-title">On arrival, the workspace differed from the checkpoint:</p>
          <ul>
            {handoff.driftWarnings.map((warning) => (
              <li key={warning.code + warning.detail}>{warning.detail}</li>
            ))}
          </ul>
        </div>
      )}
      {panel.drift === 'matched' && <p className="muted">On arrival, the workspace matched the checkpoint.</p>}
      <MoveDetails handoff={handoff} />
    </div>
  );
}

/** Renders how the last move of `session` ended (`panel`). */
export function LastMove({ session, panel, backendReason }: LastMoveProps) {
  const { handoff, arrivedHere } = panel;
  if (panel.kind === 'completed') return <Completed session={session} panel={panel} />;
  if (panel.kind === 'failed') {
    return (
      <div className="last-move last-move--cancelled">
        <p>
          <strong>{failedTitle(handoff, arrivedHere, session.condition === 'needs-attention')}</strong>
        </p>
        {handoff.cancelReason && <p>{handoff.cancelReason.message}</p>}
        <MoveDetails handoff={handoff} />
      </div>
    );
  }
  // Cancelled before the transfer: the source kept the session; it may try the same move again.
  return (
    <div className="last-move last-move--cancelled" role="status">
      <p>
        <strong>{cancelSentence(handoff)}</strong>
      </p>
      <p>{keptSentence(handoff)}</p>
      {panel.canRetry && <TryAgain session={session} handoff={handoff} backendReason={backendReason} />}
      <MoveDetails handoff={handoff} />
    </div>
  );
}
