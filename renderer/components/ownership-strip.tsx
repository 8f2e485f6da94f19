/**
 * The `region` "Ownership": where the session runs, in words ("Running on desktop — this device"),
 * marked when that device is offline, its generation as secondary text, and off the owner how to
 * continue; while it moves, the two devices and the steps of the move; after, how the last move
 * ended, while that still says where it runs (model/run-panels.ts); Move / Cancel move, each
 * disabled with why; off the owner, Move here (move-here-button.tsx).
 */
import { useId, useState } from 'react';
import type { DeviceView, SessionView } from '../../shared/device-api.ts';
import { isCancellable } from '../../shared/handoff-states.ts';
import { errorMessage } from '../model/error-words.ts';
import { useHandoffsStore, useRunPanels } from '../stores/handoffs-store.ts';
import { useNow } from '../hooks/use-now.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { formatTime } from '../model/format.ts';
import { needsBackendReason } from '../model/backend-reach.ts';
import { HandoffStepper } from './handoff-stepper.tsx';
import { LastMove } from './last-move.tsx';
import { mayMoveHere, MoveHereButton } from './move-here-button.tsx';
import { counted } from '../model/readiness-words.ts';
import { moveBlockReason, sessionTone, TONE_LABEL } from '../model/session-state.ts';

/** How to carry on with a session this device does not hold, or null on the owner. */
function continueHint(session: SessionView, selfName: string | null): string | null {
  if (session.isOwner || session.activeHandoff) return null;
  const here = selfName ?? 'this device';
  return `To continue on ${here}, use Move here: ${session.ownerName} checks that nothing is left behind, then hands it over.`;
}

function NeedsAttention({ session, backendReason }: { session: SessionView; backendReason: string | null }) {
  const retry = useHandoffsStore((state) => state.retryActivation);
  const [retrying, setRetrying] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  async function retryActivation() {
    setRetrying(true);
    setRefused(null);
    try {
      const result = await retry(session.id);
      if (!result.ok) setRefused(result.message);
    } catch (error) {
      setRefused(errorMessage(error));
    } finally {
      setRetrying(false);
    }
  }
  if (session.attention?.retryActivation === false) {
    return (
      <div className="attention-note" role="status">
        <p>{session.attention.message}</p>
        <p>
          <strong>Fix:</strong> {session.attention.fix}
        </p>
      </div>
    );
  }
  return (
    <div className="attention-note">
      <p>
        The session arrived here, but the agent could not start. This device holds it at generation {session.generation}; retry once the
        cause is fixed.
      </p>
      <button type="button" className="button" disabled={retrying || backendReason !== null} onClick={() => void retryActivation()}>
        Retry activation
      </button>
      {refused && <p className="form-error">{refused}</p>}
    </div>
  );
}

/** The owner's mark when another device runs the session and is offline now: since when it was last seen. */
function OwnerAway({ owner }: { owner: DeviceView | undefined }) {
  if (!owner || owner.isThisDevice || owner.presence !== 'offline') return null;
  const since = owner.offlineSince ?? owner.lastSeenAt;
  return <span className="owner-away"> — offline{since !== null ? ` since ${formatTime(since)}` : ''}</span>;
}

/** Renders the `region` "Ownership" of `session`, its panels derived from its state now. */
export function OwnershipStrip({ session, onMove }: { session: SessionView; onMove(): void }) {
  const panels = useRunPanels(session, useNow(true, 5000));
  const headingId = useId();
  const moveReasonId = useId();
  const cancelReasonId = useId();
  const selfName = useStatusStore((state) => state.status?.deviceName ?? null);
  const backendReason = useStatusStore((state) => needsBackendReason(state.status));
  const blocked = panels.blocked !== null && !panels.blocked.ready;
  const owner = useDevicesStore((state) => state.devices.find((device) => device.id === session.ownerDeviceId));
  const cancelMove = useHandoffsStore((state) => state.cancelMove);
  const [actionError, setActionError] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const tone = sessionTone(session, blocked);
  const active = session.activeHandoff;
  // While a move runs, Move is not offered at all: Cancel move is what can be done.
  const moveReason = active ? null : (moveBlockReason(session) ?? backendReason);
  const canCancel = active !== null && isCancellable(active.state);
  // Cancel move has its own reason: the only one, Move not being shown during a move.
  const cancelReason = canCancel ? backendReason : null;
  const hint = continueHint(session, selfName);
  const askHere = mayMoveHere(session);
  // What this page said of its last act shows beside Move here off the owner (move-here-button.tsx), here on it.
  const reasonText = actionError ?? (askHere ? null : panels.said) ?? moveReason;

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

  return (
    <section className={`panel ownership tone--${tone}`} aria-labelledby={headingId}>
      <div className="ownership-head">
        <h2 id={headingId} className="panel-title">
          Ownership
        </h2>
        <span className={`badge badge--${tone}`}>{TONE_LABEL[tone]}</span>
      </div>
      <p className="where">
        {session.condition === 'needs-attention' ? 'Stopped on ' : 'Running on '}
        <strong className="owner-name">{session.ownerName}</strong>
        {session.isOwner && <span className="where-here"> — this device</span>}
        {!session.isOwner && <OwnerAway owner={owner} />}
      </p>
      {hint && <p className="continue-hint">{hint}</p>}

      {active ? (
        <HandoffStepper handoff={active} />
      ) : (
        panels.lastMove && <LastMove session={session} panel={panels.lastMove} backendReason={backendReason} />
      )}
      {session.condition === 'needs-attention' && <NeedsAttention session={session} backendReason={backendReason} />}

      <div className="ownership-actions">
        {askHere && <MoveHereButton session={session} panels={panels} disabledReason={backendReason} />}
        {!active && (
          <button
            type="button"
            className={askHere ? 'button' : 'button button--primary'}
            disabled={moveReason !== null}
            aria-describedby={moveReason ? moveReasonId : undefined}
            onClick={onMove}
          >
            Move
          </button>
        )}
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
      <p id={moveReasonId} className={reasonText || cancelReason ? 'action-reason' : 'action-reason action-reason--empty'}>
        {reasonText ?? ''}
        {cancelReason && <span id={cancelReasonId}> {cancelReason}</span>}
      </p>
      <p className="generation-line">
        <span className="generation">generation {session.generation}</span>
        <span aria-hidden="true"> · </span>
        <span>{session.generation === 1 ? 'never moved' : `moved ${counted(session.generation - 1, 'time')}`}</span>
      </p>
    </section>
  );
}
