/** The sidebar: this device, "New session", the `navigation` "Sessions" and the account links. */
import { useId } from 'react';
import type { SessionView } from '../../shared/device-api.ts';
import { routeHref, type Route } from '../hooks/use-route.ts';
import { useBlockedPanel } from '../stores/handoffs-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { needsBackendReason } from '../model/backend-reach.ts';
import { NotificationsSwitch } from './notifications-switch.tsx';
import { sessionTone } from '../model/session-state.ts';
import { titleAndMarks } from '../model/format.ts';

/** What the sidebar adds to where a session runs. */
const TONE_NOTE: Record<ReturnType<typeof sessionTone>, string> = {
  owner: '',
  remote: '',
  moving: ' · moving',
  blocked: ' · move blocked',
  attention: ' · needs attention',
};

/** The title, shortened at its end when it must be, with a fork's mark always in view. */
function SessionTitle({ title }: { title: string }) {
  const [head, marks] = titleAndMarks(title);
  return (
    <span className="session-link-title" title={title}>
      <span className="session-link-head">{head}</span>
      {marks && <span className="session-link-marks">{marks}</span>}
    </span>
  );
}

function SessionLink({ session, current }: { session: SessionView; current: boolean }) {
  const blocked = useBlockedPanel(session);
  const tone = sessionTone(session, blocked !== null && !blocked.ready);
  return (
    <a
      href={routeHref({ screen: 'session', sessionId: session.id })}
      className={`session-link tone--${tone}`}
      aria-current={current ? 'page' : undefined}
    >
      <SessionTitle title={session.title} />
      <span className="session-link-meta" aria-hidden="true">
        <span className={`tone-dot tone-dot--${tone}`} />
        {session.isOwner ? 'on this device' : `on ${session.ownerName}`}
        {TONE_NOTE[tone]}
      </span>
    </a>
  );
}

/** Renders the sidebar for the current route. */
export function Sidebar({ route, onNewSession }: { route: Route; onNewSession(): void }) {
  const sessions = useSessionsStore((state) => state.sessions);
  const status = useStatusStore((state) => state.status);
  const connection = useStatusStore((state) => state.connection);
  const backendReason = needsBackendReason(status);
  const reasonId = useId();
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">Baton</span>
      </div>
      <div className="this-device">
        <span
          className={`reach-dot ${status?.revokedAt ? 'reach-dot--revoked' : connection === 'open' && !backendReason ? 'reach-dot--online' : ''}`}
          aria-hidden="true"
        />
        <span>{status?.deviceName ?? 'This device'}</span>
        {connection !== 'open' && <span className="muted">· {connection === 'closed' ? 'reconnecting…' : 'connecting…'}</span>}
        {connection === 'open' && status?.revokedAt && <span className="muted">· revoked</span>}
        {connection === 'open' && backendReason && !status?.revokedAt && <span className="muted">· backend unreachable</span>}
      </div>
      <button
        type="button"
        className="button button--primary button--block"
        disabled={backendReason !== null}
        title={backendReason ?? undefined}
        aria-describedby={backendReason ? reasonId : undefined}
        onClick={onNewSession}
      >
        New session
      </button>
      {backendReason && (
        <p id={reasonId} className="field-hint">
          {backendReason}
        </p>
      )}
      <nav aria-label="Sessions" className="session-nav">
        <h2 className="nav-title" aria-hidden="true">
          Sessions
        </h2>
        {sessions.length === 0 ? (
          <p className="muted nav-empty">No sessions yet.</p>
        ) : (
          <ul>
            {sessions.map((session) => (
              <li key={session.id}>
                <SessionLink session={session} current={route.screen === 'session' && route.sessionId === session.id} />
              </li>
            ))}
          </ul>
        )}
      </nav>
      <nav aria-label="Account" className="account-nav">
        <a href={routeHref({ screen: 'devices' })} className="account-link" aria-current={route.screen === 'devices' ? 'page' : undefined}>
          Devices
        </a>
      </nav>
      <NotificationsSwitch />
    </aside>
  );
}
