/** The device API's device handlers: this device's status and backend addresses, and the account's devices. */
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import type { BackendPort } from '../../ports/backend.ts';
import type { DeviceDirectory } from '../device-directory.ts';
import type { DeviceStatus } from '../device-status.ts';

export interface DeviceHandlerDeps {
  status: Pick<DeviceStatus, 'view' | 'setBackendUrls' | 'setMoveSettings'>;
  devices: Pick<DeviceDirectory, 'refresh' | 'views'>;
  backend: Pick<BackendPort, 'listDevices'>;
}

/** The status, the device list (read afresh from the backend), new backend addresses, the move settings. */
export function deviceHandlers({
  status,
  devices,
  backend,
}: DeviceHandlerDeps): Pick<DeviceApiHandlers, 'getStatus' | 'listDevices' | 'setBackendUrls' | 'setMoveSettings'> {
  return {
    getStatus: async () => status.view(),
    listDevices: async () => {
      await devices.refresh(backend);
      return devices.views();
    },
    setBackendUrls: ({ backendUrls }) => status.setBackendUrls(backendUrls),
    setMoveSettings: async ({ moveSettings }) => ({ ok: true, value: status.setMoveSettings(moveSettings) }),
  };
}
