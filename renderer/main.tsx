/** Renderer entry: mounts the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import './styles/tokens.css';
// Layout and components, one file per part of the UI; later files may override earlier ones, so the order stands.
import './styles/base.css';
import './styles/controls.css';
import './styles/frame.css';
import './styles/run-view.css';
import './styles/ownership-strip.css';
import './styles/stepper.css';
import './styles/last-move.css';
import './styles/transcript.css';
import './styles/blocked-alert.css';
import './styles/dialogs.css';
import './styles/screens.css';
import './styles/narrow-windows.css';
import './styles/backend-notice.css';
import './styles/permission-request.css';

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
