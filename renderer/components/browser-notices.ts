/**
 * The headless UI's desktop notifications: a move notice (completed, blocked, needs attention) shown
 * with the browser's Notification once the user allowed it; a click brings the page forward on the
 * session's run view. In the desktop app the main process shows them instead (electron/shell).
 */
import type { MoveNoticeView } from '../../shared/device-api.ts';
import { navigate } from '../hooks/use-route.ts';

/** Whether this page raises notices itself: a browser page (not the desktop app) that offers Notification. */
export function browserNoticesApply(): boolean {
  return window.baton === undefined && typeof window.Notification === 'function';
}

/** Shows `notice` when this page raises notices and the user allowed them; does nothing otherwise. */
export function showBrowserNotice(notice: MoveNoticeView): void {
  if (!browserNoticesApply() || window.Notification.permission !== 'granted') return;
  const shown = new window.Notification(notice.title, { body: notice.body, tag: `${notice.kind}-${notice.handoffId ?? notice.at}` });
  shown.onclick = () => {
    window.focus();
    navigate({ screen: 'session', sessionId: notice.sessionId });
    shown.close();
  };
}
