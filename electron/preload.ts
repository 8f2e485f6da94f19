/**
 * The preload: bridges the device API to the page as `window.baton` and does nothing else.
 * One domain method per device API method and one `on<Event>` per event (each returning its
 * unsubscribe); no generic invoke, no raw ipcRenderer. The renderer's API type is `typeof api`.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { DeviceApiEvent, DeviceApiMethod } from '../shared/device-api.ts';
import { buildDeviceApiClient, unwrapAnswer, type BridgeError, type DeviceApiClient } from '../shared/device-bridge.ts';
import { eventChannel, methodChannel } from './shell/ipc-channels.ts';

type Answer = { ok: true; result: unknown } | { ok: false; error: BridgeError };

async function call(method: DeviceApiMethod, input: unknown): Promise<unknown> {
  return unwrapAnswer((await ipcRenderer.invoke(methodChannel(method), input)) as Answer);
}

function listen(event: DeviceApiEvent, listener: (payload: unknown) => void): () => void {
  const channel = eventChannel(event);
  const relay = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
  ipcRenderer.on(channel, relay);
  return () => {
    ipcRenderer.removeListener(channel, relay);
  };
}

export const api: DeviceApiClient = buildDeviceApiClient(call, listen);

contextBridge.exposeInMainWorld('baton', api);
