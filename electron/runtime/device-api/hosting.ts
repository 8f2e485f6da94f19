/** The device API's hosting handler: whether other machines may reach the backend this device hosts. */
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import type { DeviceStatus } from '../device-status.ts';

export interface HostingHandlerDeps {
  status: Pick<DeviceStatus, 'shareBackend'>;
}

/** Lets other machines reach the hosted backend, or only this one (refused on a device that hosts none). */
export function hostingHandlers({ status }: HostingHandlerDeps): Pick<DeviceApiHandlers, 'shareBackend'> {
  return { shareBackend: ({ shared }) => status.shareBackend(shared) };
}
