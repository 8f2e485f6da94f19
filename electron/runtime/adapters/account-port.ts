/** The runtime's AccountPort over the enrollment modules: invites, approvals, keys, revocation (which rotates), rotation. */
import { fail, ok } from '../../../shared/errors.ts';
import type { Profile } from '../../enrollment/profile.ts';
import { createInvite, approvePendingJoins } from '../../enrollment/invites.ts';
import { refreshKeyRing, revokeDevice, rotateAdk } from '../../enrollment/key-distribution.ts';
import { syncEnrollmentBackend } from '../../enrollment/sync-backend.ts';
import type { BackendClient } from '../../sync/backend-client.ts';
import type { AccountPort } from '../../ports/account.ts';
import type { HostingPort } from '../../ports/hosting.ts';

/**
 * Account operations of the enrolled `profile`, over its signed `client`; invites of a device that
 * hosts the backend (`hosting`) carry the addresses other machines reach it at, and name this device.
 */
export function accountPort(profile: Profile, client: BackendClient, log: (m: string) => void, hosting?: HostingPort): AccountPort {
  const backend = syncEnrollmentBackend(client);
  return {
    async createInvite() {
      const host = { deviceId: profile.identity.deviceId, name: profile.info.name };
      const made = await createInvite(profile, backend, hosting ? { addresses: hosting.inviteAddresses(), backendHost: host } : {});
      if (!made.ok) return fail(made.code, made.message);
      const { line, inviteId, expiresAt, thisMachineOnly } = made.value;
      return ok({ invite: line, inviteId, expiresAt, thisMachineOnly });
    },
    async approvePendingJoins() {
      const decided = await approvePendingJoins(profile, backend);
      if (!decided.ok) return [];
      for (const d of decided.value) log(`join request of ${d.deviceName}: ${d.outcome}${d.reason ? ` (${d.reason})` : ''}`);
      return decided.value.filter((d) => d.outcome === 'approved').map(({ inviteId, deviceName }) => ({ inviteId, deviceName }));
    },
    async refreshKeyRing() {
      await refreshKeyRing(profile, backend);
    },
    async revokeDevice(deviceId) {
      const revoked = await revokeDevice(profile, backend, deviceId);
      return revoked.ok ? ok(undefined) : fail(revoked.code, revoked.message);
    },
    async rotateKeys() {
      const rotated = await rotateAdk(profile, backend);
      return rotated.ok ? ok({ keyVersion: rotated.value.keyVersion }) : fail(rotated.code, rotated.message);
    },
  };
}
