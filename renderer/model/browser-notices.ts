/**
 * The headless UI's desktop notifications: a move notice (completed, blocked, needs attention) shown
 * with the browser's Notification once the user allowed it; a click brings the page forward on the
 * session's run view. In the desktop app the main process shows them instead (electron/shell).
 */
import type { MoveNoticeView } from '../../shared/device-api.ts';

/** Whether this page raises notices itself: a browser page (not the desktop app) that offers Notification. */
export function browserNoticesApply(): boolean {
  return window.baton === undefined && typeof window.Notification === 'function';
}

/**
 * Shows `notice` when this page raises notices and the user allowed them; does nothing otherwise.
 * A click brings the page forward and calls `open` with the notice's session.
 */
export function showBrowserNotice(notice: MoveNoticeView, open: (sessionId: string) => void): void {
  if (!browserNoticesApply() || window.Notification.permission !== 'granted') return;
  const shown = new window.Notification(notice.title, { body: notice.body, tag: `${notice.kind}-${notice.handoffId ?? notice.at}` });
  shown.onclick = () => {
    window.focus();
    open(notice.sessionId);
    shown.close();
  };
}
