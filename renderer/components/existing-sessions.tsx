/**
 * The New session dialog's `group` "Existing sessions": this machine's sessions of the chosen CLI
 * provider for the typed workspace (newest first, title and time), each with a `button` "Adopt …"
 * that makes it a Baton session owned here; one already in Baton says so instead.
 */
import { useEffect, useState } from 'react';
import type { ExistingSessionView } from '../../shared/device-api.ts';
import type { PermissionLevel } from '../../shared/provider.ts';
import { errorMessage } from '../model/error-words.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { formatDay } from '../model/format.ts';

/** How long the workspace field must stay unchanged before the list is asked for. */
const SETTLE_MS = 350;

interface ExistingSessionsProps {
  workspace: string;
  provider: { id: string; label: string };
  permission: PermissionLevel;
  /** Called with the new Baton session's id once adopted. */
  onAdopted(sessionId: string): void;
}

type Listing =
  { state: 'idle' } | { state: 'loading' } | { state: 'loaded'; sessions: ExistingSessionView[] } | { state: 'failed'; message: string };

/** Lists the workspace's existing sessions of `provider` and adopts the one chosen. */
export function ExistingSessions({ workspace, provider, permission, onAdopted }: ExistingSessionsProps) {
  const listAgentSessions = useSessionsStore((state) => state.listAgentSessions);
  const adoptSession = useSessionsStore((state) => state.adoptSession);
  const [listing, setListing] = useState<Listing>({ state: 'idle' });
  const [adopting, setAdopting] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (workspace === '') {
      setListing({ state: 'idle' });
      return;
    }
    let current = true;
    setListing({ state: 'loading' });
    const timer = setTimeout(() => {
      listAgentSessions({ workspace, provider: provider.id })
        .then((listed) => {
          if (current) setListing(listed.ok ? { state: 'loaded', sessions: listed.value } : { state: 'failed', message: listed.message });
        })
        .catch((failure: unknown) => current && setListing({ state: 'failed', message: errorMessage(failure) }));
    }, SETTLE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [workspace, provider.id, listAgentSessions]);

  async function adopt(session: ExistingSessionView) {
    setAdopting(session.sessionId);
    setError(null);
    try {
      const adopted = await adoptSession({
        workspace,
        provider: provider.id,
        sessionId: session.sessionId,
        title: session.title,
        permission,
      });
      if (adopted.ok) onAdopted(adopted.value.id);
      else setError(adopted.message);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setAdopting(null);
    }
  }

  return (
    <fieldset className="existing-sessions">
      <legend className="field-label">Existing sessions</legend>
      {listing.state === 'idle' && <p className="field-hint">Type a workspace to see its {provider.label} sessions on this machine.</p>}
      {listing.state === 'loading' && <p className="field-hint">Looking for {provider.label} sessions…</p>}
      {listing.state === 'failed' && <p className="field-hint">{listing.message}</p>}
      {listing.state === 'loaded' && listing.sessions.length === 0 && (
        <p className="field-hint">No {provider.label} sessions of this workspace on this machine.</p>
      )}
      {listing.state === 'loaded' && listing.sessions.length > 0 && (
        <ul className="existing-session-list" aria-label={`${provider.label} sessions`}>
          {listing.sessions.map((session) => (
            <li key={session.sessionId} className="existing-session">
              <span className="existing-session-title">{session.title}</span>
              <time className="existing-session-time muted" dateTime={new Date(session.updatedAt).toISOString()}>
                {formatDay(session.updatedAt)}
              </time>
              {session.batonSessionId ? (
                <span className="muted">Already in Baton</span>
              ) : (
                <button
                  type="button"
                  className="button"
                  aria-label={`Adopt ${session.title}`}
                  disabled={adopting !== null}
                  onClick={() => void adopt(session)}
                >
                  {adopting === session.sessionId ? 'Adopting…' : 'Adopt'}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <p className="form-error" aria-live="polite">
        {error ?? ''}
      </p>
    </fieldset>
  );
}
