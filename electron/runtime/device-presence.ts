/**
 * Whether another device of the account is online, as far as this device knows now: online only by
 * a recent heartbeat seen through a backend this device reaches; offline once it said it stopped
 * (its last heartbeat on the way out) or its heartbeats stopped coming (a few of its own intervals,
 * which it publishes); unknown while this device cannot reach the backend, when all it has is what
 * it last knew. Each answer says since when.
 */
import type { Device } from '../../shared/api/devices.ts';
import { TARGET_OFFLINE_AFTER_MS } from '../git/target-checks.ts';
import type { DeviceCapabilities } from '../ports/devices.ts';

/** A device that publishes its heartbeat interval is offline after this many of them without one. */
const MISSED_HEARTBEATS = 3;
/** Never sooner than this, however short its interval (a busy machine or a slow link delays a beat). */
const OFFLINE_AFTER_MIN_MS = 5_000;

export interface Presence {
  state: 'online' | 'offline' | 'unknown';
  /** Offline: since its last heartbeat, or since it stopped; unknown: since this device lost the backend. */
  since: number | null;
  /** Offline because it said it stopped (not only silent). */
  stopped: boolean;
}

/** How long `device` may go without a heartbeat and still count as online. */
export function offlineAfterMs(capabilities: DeviceCapabilities | null): number {
  const interval = capabilities?.heartbeatMs;
  return interval === undefined ? TARGET_OFFLINE_AFTER_MS : Math.max(OFFLINE_AFTER_MIN_MS, interval * MISSED_HEARTBEATS);
}

/**
 * The presence of `device` now. `backend`: whether this device reaches its backend now, and since
 * when it does not. This device itself is online while it reaches the backend.
 */
export function presenceOf(
  device: Device,
  capabilities: DeviceCapabilities | null,
  context: { selfId: string; now: number; backend: { reached: boolean; since: number | null } },
): Presence {
  if (device.status === 'revoked') return { state: 'offline', since: device.revokedAt, stopped: false };
  if (!context.backend.reached) return { state: 'unknown', since: context.backend.since, stopped: false };
  if (device.id === context.selfId) return { state: 'online', since: null, stopped: false };
  if (device.lastSeenAt === null) return { state: 'offline', since: null, stopped: false };
  const stoppedAt = capabilities?.stoppedAt ?? null;
  if (stoppedAt !== null) return { state: 'offline', since: stoppedAt, stopped: true };
  if (context.now - device.lastSeenAt <= offlineAfterMs(capabilities)) return { state: 'online', since: null, stopped: false };
  return { state: 'offline', since: device.lastSeenAt, stopped: false };
}

/** When the presence of `device` changes next by time alone (its heartbeats stop counting), or null. */
export function presenceChangesAt(device: Device, capabilities: DeviceCapabilities | null): number | null {
  if (device.status !== 'enrolled' || device.lastSeenAt === null || capabilities?.stoppedAt) return null;
  return device.lastSeenAt + offlineAfterMs(capabilities) + 1;
}
