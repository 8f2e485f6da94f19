/**
 * The device API an enrolled device serves (shared/device-api.ts DeviceApiHandlers), one handler
 * file per area. Inputs arrive validated by the bridge (host/device-api-dispatch.ts); each handler
 * only delegates to the part that does the work, as the backend's http/handlers.ts does to service/.
 */
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import type { MoveHere } from '../move-here.ts';
import type { MoveService } from '../move-service.ts';
import { accountHandlers, type AccountHandlerDeps } from './account.ts';
import { backendKeyHandlers, type BackendKeyHandlerDeps } from './backend-keys.ts';
import { deviceHandlers, type DeviceHandlerDeps } from './devices.ts';
import { moveHandlers } from './moves.ts';
import { permissionHandlers, type PermissionHandlerDeps } from './permissions.ts';
import { sessionHandlers, type SessionHandlerDeps } from './sessions.ts';

export type DeviceApiDeps = SessionHandlerDeps &
  PermissionHandlerDeps &
  DeviceHandlerDeps &
  AccountHandlerDeps &
  BackendKeyHandlerDeps & { moves: MoveService; moveHere: MoveHere };

/** Every handler of the device API. */
export function deviceApiHandlers(deps: DeviceApiDeps): DeviceApiHandlers {
  return {
    ...sessionHandlers(deps),
    ...permissionHandlers(deps),
    ...moveHandlers(deps.moves, deps.moveHere),
    ...deviceHandlers(deps),
    ...accountHandlers(deps),
    ...backendKeyHandlers(deps),
  };
}
