/** The device API's backend-key handlers: what first contact with an address finds, and the re-pin. */
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import { ok } from '../../../shared/errors.ts';
import { probeBackendKey } from '../../sync/backend-trust.ts';
import type { DeviceStatus } from '../device-status.ts';

export interface BackendKeyHandlerDeps {
  status: Pick<DeviceStatus, 'pinBackendKeys'>;
}

/** Every address's key as first contact finds it (nothing sent), and new pins. */
export function backendKeyHandlers({ status }: BackendKeyHandlerDeps): Pick<DeviceApiHandlers, 'checkBackendKeys' | 'pinBackendKeys'> {
  return {
    checkBackendKeys: ({ backendUrls }) => checkBackendKeys(backendUrls),
    pinBackendKeys: async ({ backendPins }) => ok(status.pinBackendKeys(backendPins)),
  };
}

/** The key each of `urls` presents now, probed together. */
export function checkBackendKeys(urls: readonly string[]) {
  return Promise.all(urls.map((url) => probeBackendKey(url)));
}
