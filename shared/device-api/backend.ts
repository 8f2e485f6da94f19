/**
 * The device API for the sync backend this device uses: its addresses, the backend keys it accepts
 * (first contact's probe before an account is made, and the re-pin), and the backend it hosts for
 * its account (whether other machines may reach it).
 */
import { z } from 'zod';
import type { Result } from '../errors.ts';
import { BackendUrls } from '../backend-addresses.ts';
import { BackendPins, type BackendKeyProbe } from '../backend-keys.ts';
import type { DeviceStatusView } from './devices.ts';

export const backendInputs = {
  /** The backend addresses this device uses from now on (saved in its profile). */
  setBackendUrls: z.strictObject({ backendUrls: BackendUrls }),
  /** First contact: the key each address presents, nothing sent (shown before an account is made). */
  checkBackendKeys: z.strictObject({ backendUrls: BackendUrls }),
  /** The backend keys this device accepts from now on (the re-pin under Devices → Sync backend; none: the system's trust store). */
  pinBackendKeys: z.strictObject({ backendPins: BackendPins }),
  /** Lets other machines reach the backend this device hosts (over HTTPS on its network addresses), or only this one. */
  shareBackend: z.strictObject({ shared: z.boolean() }),
} as const;

/** What each method of this area resolves to. */
export interface BackendOutputs {
  setBackendUrls: Result<DeviceStatusView>;
  checkBackendKeys: BackendKeyProbe[];
  pinBackendKeys: Result<DeviceStatusView>;
  shareBackend: Result<DeviceStatusView>;
}
