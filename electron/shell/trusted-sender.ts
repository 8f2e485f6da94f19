/**
 * The one place an IPC message's sender is checked: it must be our window's own webContents,
 * from its main frame, showing our renderer (the dev server in development, our packaged files otherwise).
 */
import type { IpcMainInvokeEvent, WebContents } from 'electron';

export interface TrustedRenderer {
  /** Our window's webContents, or null before it exists / after it closed. */
  webContents(): WebContents | null;
  /** The URL prefix our renderer is served from (e.g. `http://localhost:5173/` or `file:///…/renderer/main_window/`). */
  origin: string;
}

/** Whether `url` lies under our renderer's `origin` prefix. */
export function isOurUrl(url: string, origin: string): boolean {
  try {
    const parsed = new URL(url);
    const base = new URL(origin);
    if (base.protocol === 'file:') return parsed.protocol === 'file:' && parsed.pathname.startsWith(base.pathname);
    return parsed.origin === base.origin;
  } catch {
    return false;
  }
}

/** Whether an IPC event comes from our window's main frame showing our renderer. */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>, renderer: TrustedRenderer): boolean {
  const ours = renderer.webContents();
  if (ours === null || event.sender !== ours) return false;
  const frame = event.senderFrame;
  if (!frame || frame !== ours.mainFrame) return false;
  return isOurUrl(frame.url, renderer.origin);
}
