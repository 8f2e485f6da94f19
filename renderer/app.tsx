/** The app shell: first run until this device is enrolled, then sidebar + the routed screen in `main`. */
import { useState } from 'react';
import { hasBridgeToken } from './api/device-api.ts';
import { BackendNotice } from './components/backend-notice.tsx';
import { Sidebar } from './components/sidebar.tsx';
import { useDeviceEvents } from './hooks/use-device-events.ts';
import { useRoute } from './hooks/use-route.ts';
import { DevicesScreen } from './screens/devices-screen.tsx';
import { FirstRun } from './screens/first-run.tsx';
import { NewSessionDialog } from './screens/new-session-dialog.tsx';
import { RunView } from './screens/run-view.tsx';
import { SessionsHome } from './screens/sessions-home.tsx';
import { useStatusStore } from './stores/status-store.ts';

/** The root component. */
export function App() {
  useDeviceEvents();
  const route = useRoute();
  const status = useStatusStore((state) => state.status);
  const connection = useStatusStore((state) => state.connection);
  const [creating, setCreating] = useState(false);

  if (status === null) {
    return (
      <main className="app-loading">
        {connection === 'closed' && !hasBridgeToken(window.location) ? (
          <div className="card setup-card" role="alert">
            <h1>This page needs its full link</h1>
            <p>
              The address of this device carries a token that lets the page in. Open the link that <code>baton device</code> printed when it
              started, or run <code>baton open --profile DIR</code> to print it again.
            </p>
          </div>
        ) : (
          <p className="muted" role="status">
            {connection === 'closed'
              ? 'Cannot reach this device yet; retrying… If this goes on, the link may be an old one: run baton open --profile DIR for the current one.'
              : 'Connecting to this device…'}
          </p>
        )}
      </main>
    );
  }
  if (!status.enrolled) {
    return (
      <main className="app-first-run">
        <FirstRun />
      </main>
    );
  }
  return (
    <div className="app">
      <Sidebar route={route} onNewSession={() => setCreating(true)} />
      <main className="app-main">
        <BackendNotice />
        <div className="app-screen">
          {route.screen === 'session' && <RunView key={route.sessionId} sessionId={route.sessionId} />}
          {route.screen === 'devices' && <DevicesScreen />}
          {route.screen === 'sessions' && <SessionsHome />}
        </div>
      </main>
      {creating && <NewSessionDialog onClose={() => setCreating(false)} />}
    </div>
  );
}
