/**
 * In the headless UI, the way to allow desktop notifications (a browser asks only on a click); says
 * when they are on or blocked. The desktop app needs none: its main process shows them.
 */
import { useState } from 'react';
import { browserNoticesApply } from '../model/browser-notices.ts';

/** Renders the switch, or nothing where the page does not raise notices itself. */
export function NotificationsSwitch() {
  const [permission, setPermission] = useState(() => (browserNoticesApply() ? window.Notification.permission : null));
  if (permission === null) return null;
  if (permission === 'granted') return <p className="notify-note muted">Desktop notifications are on.</p>;
  if (permission === 'denied') return <p className="notify-note muted">Desktop notifications are blocked in this browser.</p>;
  return (
    <button
      type="button"
      className="button button--block"
      onClick={() => void window.Notification.requestPermission().then((answer) => setPermission(answer))}
    >
      Turn on notifications
    </button>
  );
}
