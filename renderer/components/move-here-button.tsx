/**
 * `button` "Move here", off the owner: asks the owning device to move the session to this one.
 * The owner runs readiness as for its own Move; this device then follows the move in the stepper,
 * or shows the "Handoff blocked" alert the owner published. An offline owner is said at once, in
 * the line under the button; so is a refusal, in plain words.
 */
import { useId, useState } from 'react';
import type { SessionView } from '../../shared/device-api.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';

/** Whether this device may ask for `session` (it does not own it and no move runs). */
export function mayMoveHere(session: SessionView): boolean {
  return !session.isOwner && session.activeHandoff === null && (session.condition === 'remote' || session.condition === 'moved');
}

/** Renders Move here for `session`, with what became of the request; `disabledReason` (the backend is unreachable) disables it. */
export function MoveHereButton({ session, disabledReason }: { session: SessionView; disabledReason: string | null }) {
  const noteId = useId();
  const moveHere = useHandoffsStore((state) => state.moveHere);
  const pending = useHandoffsStore((state) => state.sessions[session.id]?.pending);
  const askedAt = useHandoffsStore((state) => state.sessions[session.id]?.asked);
  const [refused, setRefused] = useState<string | null>(null);
  // What was asked is answered by a move (the button goes) or a block (the alert shows); the note stays until then.
  const waiting = askedAt !== undefined && session.blocked === null && refused === null;
  async function ask() {
    setRefused(null);
    const result = await moveHere(session.id);
    if (!result.ok) setRefused(result.message);
  }
  const note = refused ?? disabledReason ?? (waiting ? `Asked ${session.ownerName} to move it here; it checks readiness first.` : null);
  return (
    <>
      <button
        type="button"
        className="button button--primary"
        disabled={pending !== undefined || disabledReason !== null}
        aria-describedby={note ? noteId : undefined}
        onClick={() => void ask()}
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
