/**
 * The device API's events (shared/device-api.ts DeviceApiEvents) to whoever listens: the Electron
 * window's bridge, the headless host's sockets. A listener's failure is its own.
 */
import type { DeviceApiEvent, DeviceApiEvents } from '../../shared/device-api.ts';

export type DeviceApiListener = (event: DeviceApiEvent, payload: unknown) => void;

export class DeviceEvents {
  private readonly listeners = new Set<DeviceApiListener>();

  /** Registers a listener for device API events; returns its unsubscribe. */
  subscribe(listener: DeviceApiListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether anyone listens (views nobody would receive are not built). */
  get listening(): boolean {
    return this.listeners.size > 0;
  }

  /** Sends `payload` as `event` to every listener. */
  emit<E extends DeviceApiEvent>(event: E, payload: DeviceApiEvents[E]): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event, payload);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }
}
