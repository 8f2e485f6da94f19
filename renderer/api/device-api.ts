/**
 * The renderer's handle on its device: `window.baton` inside Electron (exposed by the preload),
 * otherwise the WebSocket bridge of the headless host this page was served from. One type for both.
 */
import type { api as preloadApi } from '../../electron/preload';
import { DEVICE_API_PATH, TOKEN_PARAM } from '../../shared/device-bridge.ts';
import { createWebSocketClient, type ConnectionState } from './websocket-client.ts';

export type BatonApi = typeof preloadApi;

declare global {
  interface Window {
    baton?: BatonApi;
  }
}

interface Connection {
  api: BatonApi;
  onConnection(listener: (state: ConnectionState) => void): () => void;
}

/** The socket URL of the headless host, carrying the page's token. */
export function bridgeUrl(location: Location): string {
  const token = new URLSearchParams(location.search).get(TOKEN_PARAM) ?? '';
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${DEVICE_API_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}`;
}

/** Whether the page was opened with a token for the headless host (Electron needs none). */
export function hasBridgeToken(location: Location): boolean {
  return window.baton !== undefined || (new URLSearchParams(location.search).get(TOKEN_PARAM) ?? '') !== '';
}

function connect(): Connection {
  if (window.baton) {
    return {
      api: window.baton,
      onConnection: (listener) => {
        listener('open');
        return () => undefined;
      },
    };
  }
  const bridge = createWebSocketClient(bridgeUrl(window.location));
  const client: BatonApi = bridge.client;
  return { api: client, onConnection: bridge.onConnection };
}

const connection = connect();

/** The device API of this page. */
export const api: BatonApi = connection.api;

/** Subscribes to the bridge's connection state (always open in Electron). */
export const onConnection = connection.onConnection;
