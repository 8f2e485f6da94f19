/** The device API's account handlers: each delegates to the account port (enrollment/ behind it). */
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import { ok } from '../../../shared/errors.ts';
import type { AccountPort } from '../../ports/account.ts';
import type { DeviceStatus } from '../device-status.ts';

export interface AccountHandlerDeps {
  account: Pick<AccountPort, 'createInvite' | 'revokeDevice' | 'rotateKeys'>;
  status: Pick<DeviceStatus, 'view'>;
}

type AccountMethods = 'createAccount' | 'joinAccount' | 'createInvite' | 'revokeDevice' | 'rotateKeys';

/** Invites, revocation and key rotation; an enrolled device answers enrollment with its status. */
export function accountHandlers({ account, status }: AccountHandlerDeps): Pick<DeviceApiHandlers, AccountMethods> {
  return {
    // Enrolled already (first-run enrollment is enrolling-device.ts): the answer is the status as it is.
    createAccount: async () => ok(status.view()),
    joinAccount: async () => ok(status.view()),
    createInvite: async () => account.createInvite(),
    revokeDevice: async ({ deviceId }) => account.revokeDevice(deviceId),
    rotateKeys: async () => account.rotateKeys(),
  };
}
