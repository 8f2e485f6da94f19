/** The app shell: first run until this device is enrolled, then sidebar + the routed screen in `main`. */
import { useState } from 'react';
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
  const [creating, setCreating] = useState(false);

  if (status === null) {
    return (
      <main className="app-loading">
        <p className="muted" role="status">
          Connecting to this device…
        </p>
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
        {route.screen === 'session' && <RunView key={route.sessionId} sessionId={route.sessionId} />}
        {route.screen === 'devices' && <DevicesScreen />}
        {route.screen === 'sessions' && <SessionsHome />}
      </main>
      {creating && <NewSessionDialog onClose={() => setCreating(false)} />}
    </div>
  );
}
