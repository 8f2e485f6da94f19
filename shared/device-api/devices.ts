/**
 * The device API for this device and its account: its status (enrollment, the backend it reaches),
 * creating or joining an account, the account's devices, an invite, revoking a device, new keys.
 */
import { MoveSettings } from '../carry.ts';
import { z } from 'zod';
import type { DeviceStatus } from '../api/devices.ts';
import type { ActionResult, Result } from '../errors.ts';
import type { BackendHomeView } from './backend-home.ts';
import { BackendUrls } from '../backend-addresses.ts';
import { BackendPins, type BackendKeyView } from '../backend-keys.ts';
import { DeviceId } from './ids.ts';

export interface DeviceStatusView {
  enrolled: boolean;
  deviceId: string | null;
  /** The device's name; before enrollment, the name the set-up screen suggests (or null). */
  deviceName: string | null;
  accountId: string | null;
  /** The device's backend addresses, tried in order; before enrollment, the ones the set-up screen suggests (maybe none). */
  backendUrls: string[];
  /** Whether the device reaches its backend (null before enrollment). */
  reachability: BackendReachabilityView | null;
  /** The backend keys it accepts and the last one it refused (null before enrollment). */
  backendKey: BackendKeyView | null;
  /** Where the account's sync backend runs (null before enrollment). */
  backendHome: BackendHomeView | null;
  /** Set while a join waits for the inviting device. */
  joining: boolean;
  /** This device's move settings (Carry my changes by default, how much it carries); null before enrollment. */
  moveSettings: MoveSettings | null;
  /**
   * When this device learnt it was revoked (the backend refused it as `device_revoked`), else null.
   * A revoked device stops heartbeating and acting; only a new profile joins the account again.
   */
  revokedAt: number | null;
}

/**
 * Whether this device reaches its sync backend. 'unreachable' once a round over every address
 * failed (no connection, a timeout or a gateway's 502/503/504), until one answers again: the UI then says it shows
 * what the device last knew, and acts that need the backend are disabled.
 */
export interface BackendReachabilityView {
  state: 'unknown' | 'reachable' | 'unreachable';
  /** The address that answered last (null before any did). */
  current: string | null;
  /** The addresses the failed round tried, in order (unreachable only). */
  tried: string[];
  /** When the current state began (null while unknown). */
  since: number | null;
  /** How the last attempt failed, in words (unreachable only). */
  lastError: string | null;
}

export interface DeviceView {
  id: string;
  name: string;
  status: DeviceStatus;
  /** True only when known now: a recent heartbeat, seen through a backend this device reaches. */
  online: boolean;
  /**
   * 'online' as above; 'offline' when it stopped (said so on its way out) or its heartbeats stopped;
   * 'unknown' while this device cannot reach the backend (it shows what it last knew) or the device
   * never sent one.
   */
  presence: 'online' | 'offline' | 'unknown';
  /** Since when it is offline (its last heartbeat, or when it stopped), when it is. */
  offlineSince: number | null;
  lastSeenAt: number | null;
  isThisDevice: boolean;
}

/** A device's name as a person types it: trimmed, and said in words when it is empty or too long. */
const DeviceName = z
  .string()
  .trim()
  .min(1, 'Give this device a name, e.g. "laptop": the other devices show it by that name.')
  .max(100, 'A device name is at most 100 characters.');

export const deviceInputs = {
  getStatus: z.strictObject({}),
  /**
   * `backendUrls`: a backend run elsewhere (none: this device hosts the account's backend itself);
   * `backendPins`: the keys first contact found there (checkBackendKeys) and the person confirmed.
   */
  createAccount: z.strictObject({ backendUrls: BackendUrls.optional(), deviceName: DeviceName, backendPins: BackendPins.optional() }),
  /** `backendUrls`: addresses to use instead of the invite's. */
  joinAccount: z.strictObject({
    invite: z.string().trim().min(1, 'Paste the invite made on a device already in the account.').max(8000),
    deviceName: DeviceName,
    backendUrls: BackendUrls.optional(),
  }),
  listDevices: z.strictObject({}),
  createInvite: z.strictObject({}),
  revokeDevice: z.strictObject({ deviceId: DeviceId }),
  rotateKeys: z.strictObject({}),
  /** This device's move settings from now on (kept in its profile). */
  setMoveSettings: z.strictObject({ moveSettings: MoveSettings }),
} as const;

/** What each method of this area resolves to. */
export interface DeviceOutputs {
  getStatus: DeviceStatusView;
  createAccount: Result<DeviceStatusView>;
  joinAccount: Result<DeviceStatusView>;
  listDevices: DeviceView[];
  /**
   * `inviteId` names it in the `inviteUsed` event that says a device joined with it; `thisMachineOnly`:
   * every backend address it carries is a loopback one, so it works only for a device on this machine.
   */
  createInvite: Result<{ invite: string; inviteId: string; expiresAt: number; thisMachineOnly: boolean }>;
  revokeDevice: ActionResult;
  rotateKeys: Result<{ keyVersion: number }>;
  setMoveSettings: Result<DeviceStatusView>;
}
