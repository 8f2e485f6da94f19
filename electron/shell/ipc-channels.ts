/** The IPC channel names of the device API, derived from the method and event names in shared/. */
import type { DeviceApiEvent, DeviceApiMethod } from '../../shared/device-api.ts';

/** The invoke channel of one device API method. */
export function methodChannel(method: DeviceApiMethod): string {
  return `baton:call:${method}`;
}

/** The push channel of one device event. */
export function eventChannel(event: DeviceApiEvent): string {
  return `baton:event:${event}`;
}
