/** The runtime's AccountPort over the enrollment modules: invites, approvals, keys, revocation, rotation. */
import { fail, ok } from '../../../shared/errors.ts';
import type { Profile } from '../../enrollment/profile.ts';
import { createInvite, approvePendingJoins } from '../../enrollment/invites.ts';
import { refreshKeyRing, revokeDevice, rotateAdk } from '../../enrollment/key-distribution.ts';
import { syncEnrollmentBackend } from '../../enrollment/sync-backend.ts';
import type { BackendClient } from '../../sync/backend-client.ts';
import type { AccountPort } from '../../ports/account.ts';

/** Account operations of the enrolled `profile`, over its signed `client`. */
export function accountPort(profile: Profile, client: BackendClient, log: (m: string) => void): AccountPort {
  const backend = syncEnrollmentBackend(client);
  return {
    async createInvite() {
      const made = await createInvite(profile, backend);
      return made.ok
        ? ok({ invite: made.value.line, inviteId: made.value.inviteId, expiresAt: made.value.expiresAt })
        : fail(made.code, made.message);
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
