/**
 * The ownership strip under the agent map: owner device, generation, the handoff stepper while a
 * move runs (space reserved so nothing jumps), Move / Cancel move, and how the last move ended.
 */
import { useId, useState } from 'react';
import type { HandoffView, SessionView } from '../../shared/device-api.ts';
import { FORWARD_STATES, isCancellable, reachedAt } from '../../shared/handoff-states.ts';
import { api, errorMessage } from '../api/device-api.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { formatDuration, formatTime, resumePathText } from './format.ts';
import { needsBackendReason } from './backend-reach.ts';
import { HandoffStepper } from './handoff-stepper.tsx';
import { failedAfterTransfer, moveBlockReason, sessionTone, TONE_LABEL } from './session-state.ts';

function cancelledTitle(handoff: HandoffView, arrivedHere: boolean, attention: boolean): string {
  if (!failedAfterTransfer(handoff)) return `Move to ${handoff.targetName} cancelled.`;
  if (!arrivedHere) return `Moved to ${handoff.targetName}, whose activation failed.`;
  return attention
    ? `Moved here from ${handoff.sourceName}; activation failed.`
    : `Moved here from ${handoff.sourceName}; activation failed, then succeeded on retry.`;
}

function LastMove({ handoff, thisDeviceId, attention }: { handoff: HandoffView; thisDeviceId: string | null; attention: boolean }) {
  const arrivedHere = handoff.targetDeviceId === thisDeviceId;
  if (handoff.state === 'cancelled') {
    return (
      <div className="last-move last-move--cancelled">
        <p>
          <strong>{cancelledTitle(handoff, arrivedHere, attention)}</strong> {handoff.cancelReason?.message ?? ''}
        </p>
        {handoff.cancelReason && (
          <p className="muted">
            Reason: <code>{handoff.cancelReason.code}</code>
          </p>
        )}
      </div>
    );
  }
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
      <p>
        Resume path: <code>{handoff.resumePath ?? 'unknown'}</code> — {resumePathText(handoff.resumePath)}.
      </p>
      {handoff.resumeNote && <p className="muted">{handoff.resumeNote}</p>}
      {handoff.driftWarnings.length > 0 ? (
        <div className="drift">
          <p className="drift-title">Drift warnings</p>
          <ul>
            {handoff.driftWarnings.map((warning) => (
              <li key={warning.code + warning.detail}>
                <code>{warning.code}</code> {warning.detail}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        arrivedHere && <p className="muted">No drift: the workspace matches the checkpoint.</p>
      )}
    </div>
  );
}

/** The resting strip: the seven rows kept (same height as a live stepper), only their ghosted rail drawn, under a caption; hidden from assistive tech. */
function IdleStepper() {
  return (
    <div className="idle">
      <p className="idle-note">
        <span>No move in progress</span>
      </p>
      <ol className="stepper stepper--idle" aria-hidden="true">
        {FORWARD_STATES.map((state) => (
          <li key={state} className="step step--pending">
            <span className="step-marker" />
            <span className="step-name">{state}</span>
            <span className="step-time" />
          </li>
        ))}
      </ol>
    </div>
  );
}

/** Renders the `region` "Ownership" of `session`. */
export function OwnershipStrip({ session, onMove }: { session: SessionView; onMove(): void }) {
  const headingId = useId();
  const moveReasonId = useId();
  const cancelReasonId = useId();
  const thisDeviceId = useStatusStore((state) => state.status?.deviceId ?? null);
  const backendReason = useStatusStore((state) => needsBackendReason(state.status));
  const blocked = useHandoffsStore((state) => state.blocked[session.id] !== undefined);
  const cancelMove = useHandoffsStore((state) => state.cancelMove);
  const [actionError, setActionError] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [retrying, setRetrying] = useState(false);
  const tone = sessionTone(session, blocked);
  const moveReason = moveBlockReason(session) ?? backendReason;
  const active = session.activeHandoff;
  const canCancel = active !== null && isCancellable(active.state);
  // Cancel move has its own reason: Move's, during a move, is that a move is in progress.
  const cancelReason = canCancel ? backendReason : null;

  async function cancel() {
    setCancelling(true);
    setActionError(null);
    try {
      const result = await cancelMove(session.id);
      if (!result.ok) setActionError(result.message);
    } catch (error) {
      setActionError(errorMessage(error));
    } finally {
      setCancelling(false);
    }
  }

  async function retryActivation() {
    setRetrying(true);
    setActionError(null);
    try {
      const result = await api.retryActivation({ sessionId: session.id });
      if (!result.ok) setActionError(result.message);
    } catch (error) {
      setActionError(errorMessage(error));
    } finally {
      setRetrying(false);
    }
  }

  return (
    <section className={`panel ownership tone--${tone}`} aria-labelledby={headingId}>
      <div className="ownership-head">
        <h2 id={headingId} className="panel-title">
          Ownership
        </h2>
        <span className={`badge badge--${tone}`}>{TONE_LABEL[tone]}</span>
      </div>
      <div className="owner-line">
        <span className="owner-label">Owner</span>
        <strong className="owner-name">{session.ownerName}</strong>
        {session.isOwner && <span className="tag">this device</span>}
      </div>
      <p className="generation-line">
        <span className="generation">generation {session.generation}</span>
        <span className="muted">
          {session.generation === 1 ? 'never moved' : `moved ${session.generation - 1} time${session.generation === 2 ? '' : 's'}`}
        </span>
      </p>

      <div className="ownership-body">
        {active ? (
          <HandoffStepper handoff={active} />
        ) : session.lastHandoff ? (
          <LastMove handoff={session.lastHandoff} thisDeviceId={thisDeviceId} attention={session.condition === 'needs-attention'} />
        ) : (
          <IdleStepper />
        )}
        {session.condition === 'needs-attention' &&
          (session.attention?.retryActivation === false ? (
            <div className="attention-note" role="status">
              <p>{session.attention.message}</p>
              <p>
                <strong>Fix:</strong> {session.attention.fix}
              </p>
            </div>
          ) : (
            <div className="attention-note">
              <p>
                Activation failed after the transfer. This device owns the session at generation {session.generation}; retry when the cause
                is fixed.
              </p>
              <button type="button" className="button" disabled={retrying || backendReason !== null} onClick={() => void retryActivation()}>
                Retry activation
              </button>
            </div>
          ))}
      </div>

      <div className="ownership-actions">
        <button
          type="button"
          className="button button--primary"
          disabled={moveReason !== null}
          aria-describedby={moveReason ? moveReasonId : undefined}
          onClick={onMove}
        >
          Move
        </button>
        {canCancel && (
          <button
            type="button"
            className="button button--danger-quiet"
            disabled={cancelling || backendReason !== null}
            aria-describedby={cancelReason ? cancelReasonId : undefined}
            onClick={() => void cancel()}
          >
            Cancel move
          </button>
        )}
      </div>
      <p id={moveReasonId} className="action-reason">
        {actionError ?? moveReason ?? ''}
        {cancelReason && <span id={cancelReasonId}> {cancelReason}</span>}
      </p>
    </section>
  );
}
