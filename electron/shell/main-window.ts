/**
 * Our one window, locked down: context isolation, sandbox, no node integration, no navigation away,
 * no new windows, no webviews, no permissions, and the renderer's CSP on every response.
 */
import { BrowserWindow, session, shell, type Rectangle } from 'electron';
import { isOurUrl } from './trusted-sender.ts';

export interface MainWindowOptions {
  preloadPath: string;
  /** The renderer's URL: the dev server in development, our index.html otherwise. */
  rendererUrl: string;
  /** The URL prefix our renderer lives under (see TrustedRenderer.origin). */
  origin: string;
  bounds: Partial<Rectangle>;
  csp: string;
}

/** Applies the app-wide session policy: CSP header on every response, every permission denied. */
export function lockDownSession(csp: string): void {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
}

/** Creates and loads the main window. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: options.bounds.width ?? 1280,
    height: options.bounds.height ?? 820,
    ...(options.bounds.x !== undefined && options.bounds.y !== undefined ? { x: options.bounds.x, y: options.bounds.y } : {}),
    minWidth: 760,
    minHeight: 520,
    title: 'Baton',
    show: false,
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  const contents = window.webContents;
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event, url) => {
    if (!isOurUrl(url, options.origin)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    // Links to the web open in the user's browser; nothing opens inside Baton.
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(options.rendererUrl);
  return window;
}
