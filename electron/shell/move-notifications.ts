/**
 * The desktop app's notifications of a move (electron/runtime/move-notices.ts decides them): each is
 * shown with Electron's Notification from the main process, and a click brings the window forward
 * and tells the renderer to open that session's run view.
 */
import { Notification } from 'electron';
import type { DeviceApiEvent, MoveNoticeView } from '../../shared/device-api.ts';

export interface MoveNotificationsOptions {
  /** Subscribes to the device's events; returns the unsubscribe. */
  subscribe(listener: (event: DeviceApiEvent, payload: unknown) => void): () => void;
  /** The notice about `sessionId` was clicked: show the window on that session's run view. */
  open(sessionId: string): void;
}

/** Shows every move notice of the device as a desktop notification; returns the unsubscribe. */
export function showMoveNotifications(options: MoveNotificationsOptions): () => void {
  // Kept until closed or clicked, so a notification is not collected while it is on screen.
  const shown = new Set<Notification>();
  return options.subscribe((event, payload) => {
    if (event !== 'moveNotice' || !Notification.isSupported()) return;
    const notice = payload as MoveNoticeView;
    const notification = new Notification({ title: notice.title, body: notice.body });
    shown.add(notification);
    notification.on('click', () => {
      shown.delete(notification);
      options.open(notice.sessionId);
    });
    notification.on('close', () => shown.delete(notification));
    notification.show();
  });
}
