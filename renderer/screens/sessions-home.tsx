/** The sessions screen when none is open: a summary and how to start. */
import { useSessionsStore } from '../stores/sessions-store.ts';
import { useStatusStore } from '../stores/status-store.ts';

/** Renders the sessions overview inside `main`. */
export function SessionsHome() {
  const sessions = useSessionsStore((state) => state.sessions);
  const loaded = useSessionsStore((state) => state.loaded);
  const deviceName = useStatusStore((state) => state.status?.deviceName ?? 'this device');
  const owned = sessions.filter((s) => s.isOwner).length;
  const moving = sessions.filter((s) => s.activeHandoff !== null).length;
  return (
    <div className="page-pad sessions-home">
      <header className="page-header">
        <h1>Sessions</h1>
        <p className="muted">
          {!loaded
            ? 'Loading…'
            : sessions.length === 0
              ? 'No sessions yet. Use New session to run an agent in a git workspace — the Demo agent works offline.'
              : `${sessions.length} session${sessions.length === 1 ? '' : 's'} in this account; ${owned} owned by ${deviceName}${moving ? `, ${moving} moving` : ''}. Open one by its title.`}
        </p>
      </header>
      <ol className="how-it-works">
        <li>
          <span>
            <strong>Start</strong> a session in a workspace. Its agents appear in the agent map.
          </span>
        </li>
        <li>
          <span>
            <strong>Move</strong> it from the run view to another device. Readiness is checked first: uncommitted or unpushed work never
            crosses.
          </span>
        </li>
        <li>
          <span>
            <strong>Continue</strong> on the target at the same commits; the ownership strip shows who holds the session.
          </span>
        </li>
      </ol>
    </div>
  );
}
