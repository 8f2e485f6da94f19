/**
 * `button` "Fork from here", on a completed move of the handoff history: a new session on this
 * device, continued from that move's checkpoint on a branch of its own; the original is untouched.
 * Disabled, with the reason beside it, when the backend no longer keeps the checkpoint or this
 * device lacks the session's agent. Once made, the run view of the fork opens.
 */
import { useId, useState } from 'react';
import type { HandoffView } from '../../shared/device-api.ts';
import { navigate } from '../hooks/use-route.ts';
import { errorMessage } from '../model/error-words.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';

/** Why `handoff` cannot be forked from on this device, or null. */
export function forkRefusal(handoff: HandoffView, agent: { label: string; available: boolean } | undefined): string | null {
  if (!handoff.checkpointKept) return 'Its checkpoint is no longer kept, so there is nothing to fork from.';
  if (agent && !agent.available) return `This device does not have ${agent.label}.`;
  return null;
}

/** Renders Fork from here for the completed `handoff` of a session run by `provider`. */
export function ForkButton({ handoff, provider }: { handoff: HandoffView; provider: string }) {
  const noteId = useId();
  const forkSession = useSessionsStore((state) => state.forkSession);
  const agent = useSessionsStore((state) => state.providers.find((p) => p.id === provider));
  const [forking, setForking] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const refusal = forkRefusal(handoff, agent);
  async function fork() {
    setForking(true);
    setFailed(null);
    try {
      const made = await forkSession({ sessionId: handoff.sessionId, handoffId: handoff.id });
      if (made.ok) navigate({ screen: 'session', sessionId: made.value.id });
      else setFailed(made.message);
    } catch (failure) {
      setFailed(errorMessage(failure));
    } finally {
      setForking(false);
    }
  }
  const note = failed ?? refusal;
  return (
    <span className="history-fork">
      <button
        type="button"
        className="button button--quiet"
        disabled={forking || refusal !== null}
        aria-describedby={note ? noteId : undefined}
        onClick={() => void fork()}
      >
        {forking ? 'Forking…' : 'Fork from here'}
      </button>
      {note && (
        <span id={noteId} className={failed ? 'form-error' : 'muted'} role={failed ? 'alert' : undefined}>
          {note}
        </span>
      )}
    </span>
  );
}
