/**
 * `button` "Move here", off the owner: asks the owning device to move the session to this one.
 * The owner runs readiness as for its own Move; this device then follows the move in the stepper,
 * or shows the "Handoff blocked" alert the owner published. Under the button, while the owner has
 * not answered, that it was asked (model/run-panels.ts askedNote: only at the owner and generation
 * it was asked at); a refusal in plain words, while it still holds (an offline owner, until it is back).
 */
import { useId } from 'react';
import type { SessionView } from '../../shared/device-api.ts';
import { formatTime } from '../model/format.ts';
import { stampOf, type AskedNote, type RunPanels } from '../model/run-panels.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';

/** Whether this device may ask for `session` (it does not own it and no move runs). */
export function mayMoveHere(session: SessionView): boolean {
  return !session.isOwner && session.activeHandoff === null && (session.condition === 'remote' || session.condition === 'moved');
}

/** What the note under the button says of a request the owner has not answered. */
function askedText(asked: AskedNote): string {
  if (!asked.late) return `Asked ${asked.ownerName} to move it here; it checks readiness first.`;
  return `Asked ${asked.ownerName} at ${formatTime(asked.at)}, and nothing came of it: check that Baton runs there, then ask again.`;
}

/** Renders Move here for `session`, with what became of the request; `disabledReason` (the backend is unreachable) disables it. */
export function MoveHereButton({
  session,
  panels,
  disabledReason,
}: {
  session: SessionView;
  panels: Pick<RunPanels, 'asked' | 'said'>;
  disabledReason: string | null;
}) {
  const noteId = useId();
  const moveHere = useHandoffsStore((state) => state.moveHere);
  const pending = useHandoffsStore((state) => state.sessions[session.id]?.pending);
  const note = panels.said ?? disabledReason ?? (panels.asked ? askedText(panels.asked) : null);
  const refused = panels.said !== null;
  return (
    <>
      <button
        type="button"
        className="button button--primary"
        disabled={pending !== undefined || disabledReason !== null}
        aria-describedby={note ? noteId : undefined}
        onClick={() => void moveHere(session.id, stampOf(session))}
      >
        {pending === 'move' ? 'Asking…' : 'Move here'}
      </button>
      {note && (
        <p id={noteId} className={refused ? 'form-error move-here-note' : 'move-here-note'} role="status">
          {note}
        </p>
      )}
    </>
  );
}
