/**
 * Where the account's sync backend runs, in words, pure and testable: the line Devices shows on
 * every device ("Your sync backend runs on desk"), the state of a backend this device hosts, and the
 * name the unreachable notices give it ("the sync backend on desk").
 */
import type { DeviceStatusView, HostedBackendView } from '../../shared/device-api.ts';

/** The device hosting the backend, when a device does: this one (with its name) or another; else null. */
export function backendHostName(status: DeviceStatusView | null): string | null {
  const home = status?.backendHome;
  if (home?.where === 'this-device') return status?.deviceName ?? null;
  return home?.where === 'device' ? home.deviceName : null;
}

/** The backend as the notices name it: "the sync backend on desk", or "the sync backend" when no device hosts it. */
export function backendName(status: DeviceStatusView | null): string {
  const host = backendHostName(status);
  return host === null ? 'the sync backend' : `the sync backend on ${host}`;
}

/** The line Devices shows: where the account's backend runs, and what that means for the other devices. */
export function backendHomeLine(status: DeviceStatusView | null): string | null {
  const home = status?.backendHome;
  if (!status || !home) return null;
  if (home.where === 'this-device') {
    const name = status.deviceName ?? 'this device';
    return `Your sync backend runs on this device, ${name}. Other devices can move sessions only while ${name} is on.`;
  }
  if (home.where === 'device')
    return `Your sync backend runs on ${home.deviceName}. Moves, new sessions and invites need ${home.deviceName} to be on.`;
  const [first, ...more] = status.backendUrls;
  if (first === undefined) return null;
  return `Your sync backend runs at ${first}${more.length > 0 ? ` (and ${more.length} more address${more.length > 1 ? 'es' : ''})` : ''}.`;
}

/** The state of the backend this device hosts, in a few words. */
export function hostedStateText(hosted: HostedBackendView): string {
  if (hosted.state === 'starting') return 'Starting…';
  if (hosted.state === 'failed') return `Not running: ${hosted.error ?? 'it could not start'}`;
  return hosted.shared ? 'Running · other machines can reach it' : 'Running · this machine only';
}
