/** Account operations of an enrolled device, as the runtime sees them (over enrollment/ in runtime/adapters/account-port.ts). */
import type { ActionResult, Result } from '../../shared/errors.ts';

/** Account operations of an enrolled device (the enrollment modules). */
export interface AccountPort {
  /** `thisMachineOnly`: every backend address the invite carries is a loopback one. */
  createInvite(): Promise<Result<{ invite: string; inviteId: string; expiresAt: number; thisMachineOnly: boolean }>>;
  /** Approves pending join requests made with this device's invites; resolves to the invites used by an approved join. */
  approvePendingJoins(): Promise<{ inviteId: string; deviceName: string }[]>;
  /** Fetches newly wrapped key versions (after a rotation), and rotates when a revoked device holds the newest. */
  refreshKeyRing(): Promise<void>;
  /** Revokes another device and rotates the keys, so what is sealed from now on is closed to it. */
  revokeDevice(deviceId: string): Promise<ActionResult>;
  rotateKeys(): Promise<Result<{ keyVersion: number }>>;
}
