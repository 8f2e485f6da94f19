import { describe, expect, it } from 'vitest';
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { DeviceApiHandlers } from '../../shared/device-api.ts';
import { METHOD_NAMES } from '../../shared/device-bridge.ts';
import { forwardDeviceEvents, registerDeviceApi } from './ipc-bridge.ts';
import { eventChannel, methodChannel } from './ipc-channels.ts';
import type { TrustedRenderer } from './trusted-sender.ts';

type Handler = (event: IpcMainInvokeEvent, input: unknown) => Promise<unknown>;

/** A stand-in for ipcMain that records handlers (Electron itself cannot run here). */
function fakeIpcMain() {
  const handlers = new Map<string, Handler>();
  const ipcMain = {
    handle: (channel: string, handler: Handler) => handlers.set(channel, handler),
    removeHandler: (channel: string) => handlers.delete(channel),
  } as unknown as IpcMain;
  return { ipcMain, handlers };
}

const ORIGIN = 'file:///opt/baton/resources/app.asar/.vite/renderer/main_window/';

function fakeContents(url: string) {
  const mainFrame = { url };
  const sent: [string, unknown][] = [];
  const contents = { mainFrame, isDestroyed: () => false, send: (channel: string, payload: unknown) => sent.push([channel, payload]) };
  return { contents: contents as unknown as WebContents, mainFrame, sent };
}

function recordingHandlers(calls: string[]): DeviceApiHandlers {
  const handlers: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const method of METHOD_NAMES)
    handlers[method] = async (input) => {
      calls.push(`${method} ${JSON.stringify(input)}`);
      return { from: method };
    };
  return handlers as unknown as DeviceApiHandlers;
}

function setup() {
  const { ipcMain, handlers } = fakeIpcMain();
  const ours = fakeContents(`${ORIGIN}index.html#/sessions/s1`);
  const renderer: TrustedRenderer = { webContents: () => ours.contents, origin: ORIGIN };
  const calls: string[] = [];
  const remove = registerDeviceApi(ipcMain, () => recordingHandlers(calls), renderer);
  const invoke = (
    method: string,
    input: unknown,
    event: Partial<IpcMainInvokeEvent> = { sender: ours.contents, senderFrame: ours.mainFrame as never },
  ) => handlers.get(methodChannel(method as never))!(event as IpcMainInvokeEvent, input);
  return { handlers, ours, renderer, calls, remove, invoke };
}

describe('the Electron IPC bridge', () => {
  it('registers exactly one handler per device API method, and removes them all', () => {
    const { handlers, remove } = setup();
    expect([...handlers.keys()].sort()).toEqual(METHOD_NAMES.map((m) => methodChannel(m)).sort());
    remove();
    expect(handlers.size).toBe(0);
  });

  it('calls the runtime with the validated input when our window asks', async () => {
    const { invoke, calls } = setup();
    expect(await invoke('startMove', { sessionId: 's1', targetDeviceId: 'd2' })).toEqual({ ok: true, result: { from: 'startMove' } });
    expect(calls).toEqual(['startMove {"sessionId":"s1","targetDeviceId":"d2"}']);
  });

  it('refuses a sender that is not our window, a subframe, or a page that is not our renderer', async () => {
    const { invoke, calls, ours } = setup();
    const stranger = fakeContents(`${ORIGIN}index.html`);
    const foreign = fakeContents('https://attacker.example/');
    const subframe = { url: `${ORIGIN}index.html` };
    for (const event of [
      { sender: stranger.contents, senderFrame: stranger.mainFrame },
      { sender: ours.contents, senderFrame: subframe },
      { sender: foreign.contents, senderFrame: foreign.mainFrame },
    ]) {
      expect(await invoke('listSessions', {}, event as never)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    ours.mainFrame.url = 'file:///tmp/evil/index.html';
    expect(await invoke('listSessions', {}, { sender: ours.contents, senderFrame: ours.mainFrame as never })).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(calls).toEqual([]);
  });

  it('refuses invalid input without calling the runtime', async () => {
    const { invoke, calls } = setup();
    expect(await invoke('commitAll', { sessionId: 's1', repo: '/r', message: '   ' })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' },
    });
    expect(await invoke('getStatus', { extra: 1 })).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    expect(calls).toEqual([]);
  });

  it('forwards device events to our window on their own channels', () => {
    const { ours, renderer } = setup();
    let emit: ((event: 'devicesChanged', payload: unknown) => void) | null = null;
    forwardDeviceEvents((listener) => {
      emit = listener;
      return () => undefined;
    }, renderer);
    emit!('devicesChanged', []);
    expect(ours.sent).toEqual([[eventChannel('devicesChanged'), []]]);
  });
});
