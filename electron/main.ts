/**
 * The Electron main process: one locked-down window showing the renderer, the device API bridged over
 * IPC (senders checked in one place), the same device runtime as `baton device`, device keys kept
 * with safeStorage, settings with electron-store. The device profile is locked to this process, and
 * an account created with no backend configured is hosted here: its backend runs in a child process
 * (backend-host.js, beside main), its data in userData/backend, and stops with the app.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain } from 'electron';
import { lockProfile } from './enrollment/profile-lock.ts';
import { childHostingEngine } from './hosting/child-engine.ts';
import { createEnrollingDevice, DEFAULT_RUNTIME_TIMING } from './runtime/enrolling-device.ts';
import { utilityHostingChild } from './shell/hosting-child.ts';
import { eventChannel } from './shell/ipc-channels.ts';
import { forwardDeviceEvents, registerDeviceApi } from './shell/ipc-bridge.ts';
import { showMoveNotifications } from './shell/move-notifications.ts';
import { createMainWindow, lockDownSession } from './shell/main-window.ts';
import { safeStorageSecretStore, safeStorageUsable } from './shell/safe-storage-secret-store.ts';
import { backendList } from '../shared/backend-addresses.ts';
import { CONTENT_SECURITY_POLICY, DEV_SERVER_CONTENT_SECURITY_POLICY } from '../shared/content-security-policy.ts';
import { openSettings } from './shell/settings.ts';
import type { TrustedRenderer } from './shell/trusted-sender.ts';

// Defined by Electron Forge's Vite plugin.
declare const MAIN_WINDOW_VITE_DEV_SERVER_URL: string | undefined;
declare const MAIN_WINDOW_VITE_NAME: string;

const here = import.meta.dirname;
const devServer = typeof MAIN_WINDOW_VITE_DEV_SERVER_URL === 'string' ? MAIN_WINDOW_VITE_DEV_SERVER_URL : undefined;
const rendererIndex = join(here, '..', 'renderer', MAIN_WINDOW_VITE_NAME, 'index.html');
const rendererUrl = devServer ?? pathToFileURL(rendererIndex).href;
const origin = devServer ?? pathToFileURL(join(here, '..', 'renderer', MAIN_WINDOW_VITE_NAME) + '/').href;

app.enableSandbox();
if (!app.requestSingleInstanceLock()) app.quit();

let window: BrowserWindow | null = null;
const renderer: TrustedRenderer = { webContents: () => (window && !window.isDestroyed() ? window.webContents : null), origin };

async function ready(): Promise<void> {
  const settings = openSettings(app.getPath('userData'), app.getPath('home'));
  // One process per device profile: a `baton device` (or another app) on it already drives its sessions.
  const lock = lockProfile(settings.get('profileDir'), 'the desktop app');
  if (!lock.ok) {
    dialog.showErrorBox('Baton is already running on this device profile', lock.message);
    app.quit();
    return;
  }
  if (!safeStorageUsable())
    console.error('[baton] the OS keychain is not available: device keys are protected only by file permissions here.');
  // Addresses kept in the settings win over the profile's, as --backend does for `baton device`.
  const kept = backendList(settings.get('backendUrls'));
  const device = createEnrollingDevice({
    profileDir: settings.get('profileDir'),
    suggestedDeviceName: hostname(),
    secretStore: safeStorageSecretStore,
    backendUrls: kept.ok ? kept.value : null,
    hosting: {
      dataDir: join(app.getPath('userData'), 'backend'),
      engine: childHostingEngine(() => utilityHostingChild(join(here, 'backend-host.js'))),
    },
    runtime: {
      ...DEFAULT_RUNTIME_TIMING,
      workspaceRoot: settings.get('workspaceRoot'),
      log: (message) => console.error(`[baton] ${message}`),
      onBackendUrlsChanged: (urls) => settings.set('backendUrls', [...urls]),
    },
  });
  lockDownSession(devServer ? DEV_SERVER_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY);
  registerDeviceApi(ipcMain, () => device.handlers(), renderer);
  forwardDeviceEvents((listener) => device.subscribe(listener), renderer);
  const open = (): BrowserWindow => {
    const opened = createMainWindow({
      preloadPath: join(here, 'preload.js'),
      rendererUrl,
      origin,
      bounds: settings.get('windowBounds'),
      csp: CONTENT_SECURITY_POLICY,
    });
    window = opened;
    opened.on('close', () => settings.set('windowBounds', opened.getBounds()));
    opened.on('closed', () => {
      window = null;
    });
    return opened;
  };
  showMoveNotifications({
    subscribe: (listener) => device.subscribe(listener),
    open: (sessionId) => {
      const tell = () => renderer.webContents()?.send(eventChannel('noticeClicked'), { sessionId });
      if (!window) {
        // A window opened for the click hears of the session once its renderer has loaded.
        open().webContents.once('did-finish-load', tell);
        return;
      }
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
      tell();
    },
  });
  await device.start().catch((error: unknown) => console.error(`[baton] device start failed: ${(error as Error).message}`));

  open();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) open();
  });
  app.on('second-instance', () => {
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
  });
  // Quitting waits for the device to stop, so its last local records reach the disk.
  let stopped = false;
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    void device.stop().finally(() => {
      lock.value.release();
      stopped = true;
      app.quit();
    });
  });
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (navigation) => navigation.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
void app.whenReady().then(ready);
