/**
 * The Electron side of the device API: one `ipcMain.handle` per method, each checking its sender in
 * one place and validating its input before the runtime sees it; device events forwarded to our window.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { EVENT_NAMES, type DeviceApiEvent, type DeviceApiHandlers } from '../../shared/device-api.ts';
import { METHOD_NAMES } from '../../shared/device-bridge.ts';
import { dispatchDeviceCall, type DispatchOutcome } from '../runtime/device-api/dispatch.ts';
import { eventChannel, methodChannel } from './ipc-channels.ts';
import { isTrustedSender, type TrustedRenderer } from './trusted-sender.ts';

/** Registers the device API handlers on `ipcMain`; returns a function that removes them. */
export function registerDeviceApi(ipcMain: IpcMain, handlers: () => DeviceApiHandlers, renderer: TrustedRenderer): () => void {
  for (const method of METHOD_NAMES) {
    ipcMain.handle(methodChannel(method), async (event: IpcMainInvokeEvent, input: unknown): Promise<DispatchOutcome> => {
      if (!isTrustedSender(event, renderer)) {
        return { ok: false, error: { code: 'forbidden', message: 'This window may not use the device API.' } };
      }
      return dispatchDeviceCall(handlers(), method, input);
    });
  }
  return () => METHOD_NAMES.forEach((method) => ipcMain.removeHandler(methodChannel(method)));
}

/** Forwards every device event to our window (if it is open); returns the unsubscribe. */
export function forwardDeviceEvents(
  subscribe: (listener: (event: DeviceApiEvent, payload: unknown) => void) => () => void,
  renderer: TrustedRenderer,
): () => void {
  return subscribe((event, payload) => {
    if (!EVENT_NAMES.includes(event)) return;
    const target = renderer.webContents();
    if (target && !target.isDestroyed()) target.send(eventChannel(event), payload);
  });
}
