/**
 * The device API in a browser tab: the same client type as Electron's `window.baton`, carried over
 * the headless host's WebSocket bridge. Calls wait for the socket; the socket reconnects with backoff.
 */
import type { DeviceApiEvent } from '../../shared/device-api.ts';
import {
  buildDeviceApiClient,
  DeviceApiError,
  unwrapAnswer,
  type BridgeEvent,
  type BridgeResponse,
  type DeviceApiClient,
} from '../../shared/device-bridge.ts';

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface WebSocketClient {
  client: DeviceApiClient;
  /** Tells the current connection state now and every change after; returns its unsubscribe. */
  onConnection(listener: (state: ConnectionState) => void): () => void;
  close(): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Opens the bridge at `socketUrl` and returns a DeviceApiClient over it. */
export function createWebSocketClient(socketUrl: string): WebSocketClient {
  let socket: WebSocket | null = null;
  let nextId = 1;
  let closed = false;
  let retryMs = 250;
  const pending = new Map<number, Pending>();
  const outbox: string[] = [];
  const listeners = new Map<DeviceApiEvent, Set<(payload: unknown) => void>>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  let connection: ConnectionState = 'connecting';
  const announce = (state: ConnectionState) => {
    connection = state;
    connectionListeners.forEach((listener) => listener(state));
  };

  function onMessage(raw: string): void {
    const message = JSON.parse(raw) as BridgeResponse | BridgeEvent;
    if ('event' in message) {
      listeners.get(message.event)?.forEach((listener) => listener(message.payload));
      return;
    }
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    try {
      waiting.resolve(unwrapAnswer(message));
    } catch (error) {
      waiting.reject(error as Error);
    }
  }

  function open(): void {
    announce('connecting');
    const current = new WebSocket(socketUrl);
    socket = current;
    current.onopen = () => {
      retryMs = 250;
      announce('open');
      while (outbox.length > 0) current.send(outbox.shift()!);
    };
    current.onmessage = (event) => onMessage(String(event.data));
    current.onclose = () => {
      for (const [id, waiting] of pending) {
        waiting.reject(new DeviceApiError('internal', 'The connection to this device was lost.'));
        pending.delete(id);
      }
      if (closed) return;
      announce('closed');
      setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 5000);
    };
  }

  function call(method: string, input: unknown): Promise<unknown> {
    const id = nextId++;
    const text = JSON.stringify({ id, method, input });
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      if (socket?.readyState === WebSocket.OPEN) socket.send(text);
      else outbox.push(text);
    });
  }

  function listen(event: DeviceApiEvent, listener: (payload: unknown) => void): () => void {
    const set = listeners.get(event) ?? new Set();
    set.add(listener);
    listeners.set(event, set);
    return () => {
      set.delete(listener);
    };
  }

  open();
  return {
    client: buildDeviceApiClient(call, listen),
    onConnection(listener) {
      connectionListeners.add(listener);
      listener(connection);
      return () => {
        connectionListeners.delete(listener);
      };
    },
    close() {
      closed = true;
      socket?.close();
    },
  };
}
