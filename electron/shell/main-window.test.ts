/**
 * The window's lock-down, checked against a recording stand-in for Electron's module (the Electron
 * binary cannot be downloaded here, so no real window opens in CI): the options the window is made
 * with, and what each navigation, redirect, webview, new-window and permission request gets.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

type Listener = (...args: unknown[]) => unknown;

const recorded = vi.hoisted(() => ({
  windows: [] as { options: Record<string, unknown>; listeners: Map<string, Listener>; openHandler: Listener | null; loaded: string[] }[],
  headers: null as Listener | null,
  permissionRequest: null as Listener | null,
  permissionCheck: null as Listener | null,
  external: [] as string[],
}));

vi.mock('electron', () => {
  class BrowserWindow {
    readonly webContents: unknown;
    constructor(options: Record<string, unknown>) {
      const entry = { options, listeners: new Map<string, Listener>(), openHandler: null as Listener | null, loaded: [] as string[] };
      recorded.windows.push(entry);
      this.webContents = {
        on: (name: string, listener: Listener) => entry.listeners.set(name, listener),
        setWindowOpenHandler: (handler: Listener) => {
          entry.openHandler = handler;
        },
      };
      this.loadURL = async (url: string) => {
        entry.loaded.push(url);
      };
    }
    loadURL: (url: string) => Promise<void>;
    once(): void {}
    show(): void {}
  }
  return {
    BrowserWindow,
    session: {
      defaultSession: {
        webRequest: {
          onHeadersReceived: (listener: Listener) => {
            recorded.headers = listener;
          },
        },
        setPermissionRequestHandler: (handler: Listener) => {
          recorded.permissionRequest = handler;
        },
        setPermissionCheckHandler: (handler: Listener) => {
          recorded.permissionCheck = handler;
        },
      },
    },
    shell: {
      openExternal: async (url: string) => {
        recorded.external.push(url);
      },
    },
  };
});

const { createMainWindow, lockDownSession } = await import('./main-window.ts');

const ORIGIN = 'file:///opt/baton/resources/app.asar/.vite/renderer/main_window/';

function openWindow() {
  createMainWindow({
    preloadPath: '/opt/baton/preload.js',
    rendererUrl: `${ORIGIN}index.html`,
    origin: ORIGIN,
    bounds: {},
    csp: "default-src 'none'",
  });
  return recorded.windows.at(-1)!;
}

function preventable() {
  const event = {
    prevented: false,
    preventDefault() {
      this.prevented = true;
    },
  };
  return event;
}

beforeEach(() => {
  recorded.windows.length = 0;
  recorded.external.length = 0;
});

describe('the main window', () => {
  it('is created isolated and sandboxed, with no Node in the page, and loads our renderer with our preload', () => {
    const window = openWindow();
    expect(window.options.webPreferences).toMatchObject({
      preload: '/opt/baton/preload.js',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(window.loaded).toEqual([`${ORIGIN}index.html`]);
  });

  it('refuses every navigation, redirects away from our files and webviews', () => {
    const window = openWindow();
    const navigation = preventable();
    window.listeners.get('will-navigate')!(navigation, 'https://example.com/');
    expect(navigation.prevented).toBe(true);
    const away = preventable();
    window.listeners.get('will-redirect')!(away, 'https://example.com/');
    expect(away.prevented).toBe(true);
    const home = preventable();
    window.listeners.get('will-redirect')!(home, `${ORIGIN}index.html#/devices`);
    expect(home.prevented).toBe(false);
    const webview = preventable();
    window.listeners.get('will-attach-webview')!(webview);
    expect(webview.prevented).toBe(true);
  });

  it("opens no window of its own: https links go to the user's browser, anything else nowhere", () => {
    const window = openWindow();
    for (const url of ['https://docs.example.com/baton', 'file:///etc/passwd', 'javascript:alert(1)', 'http://plain.example.com/']) {
      expect(window.openHandler!({ url })).toEqual({ action: 'deny' });
    }
    expect(recorded.external).toEqual(['https://docs.example.com/baton']);
  });
});

describe('the session lock-down', () => {
  it('puts the CSP on every response and denies every permission', () => {
    lockDownSession("default-src 'none'; script-src 'self'");
    let answered: unknown = null;
    recorded.headers!({ responseHeaders: { 'Content-Type': ['text/html'] } }, (response: unknown) => {
      answered = response;
    });
    expect(answered).toEqual({
      responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': ["default-src 'none'; script-src 'self'"] },
    });
    const granted: boolean[] = [];
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read'])
      recorded.permissionRequest!({}, permission, (allowed: boolean) => granted.push(allowed));
    expect(granted).toEqual([false, false, false, false]);
    expect(recorded.permissionCheck!({}, 'media')).toBe(false);
  });
});
