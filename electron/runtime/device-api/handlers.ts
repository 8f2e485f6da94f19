/**
 * The device API an enrolled device serves (shared/device-api.ts DeviceApiHandlers), one handler
 * file per area. Inputs arrive validated by the dispatch both hosts hand each call to (dispatch.ts);
 * each handler only delegates to the part that does the work, as the backend's http/handlers.ts
 * does to service/.
 */
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import { fail } from '../../../shared/errors.ts';
import type { DeviceStatus } from '../device-status.ts';
import type { MoveHere } from '../move-here.ts';
import type { MoveService } from '../move-service.ts';
import { accountHandlers, type AccountHandlerDeps } from './account.ts';
import { backendKeyHandlers, type BackendKeyHandlerDeps } from './backend-keys.ts';
import { deviceHandlers, type DeviceHandlerDeps } from './devices.ts';
import { hostingHandlers } from './hosting.ts';
import { moveHandlers } from './moves.ts';
import { permissionHandlers, type PermissionHandlerDeps } from './permissions.ts';
import { sessionHandlers, type SessionHandlerDeps } from './sessions.ts';

export type DeviceApiDeps = SessionHandlerDeps &
  PermissionHandlerDeps &
  DeviceHandlerDeps &
  AccountHandlerDeps &
  BackendKeyHandlerDeps & {
    moves: MoveService;
    moveHere: MoveHere;
    status: Pick<DeviceStatus, 'view' | 'setBackendUrls' | 'setMoveSettings' | 'revoked' | 'shareBackend'>;
  };

/** The acts a revoked device refuses (the backend would refuse each of them anyway); reads still answer what it last knew. */
const ACTS = [
  'startSession',
  'adoptSession',
  'sendMessage',
  'answerPermission',
  'interruptTurn',
  'startMove',
  'moveHere',
  'cancelMove',
  'retryActivation',
  'createInvite',
  'revokeDevice',
  'rotateKeys',
  'shareBackend',
] as const;

export const REVOKED_MESSAGE =
  'This device was revoked from the account, so it can no longer run, move or change sessions. To use it again, join the account anew from an enrolled device with a new device profile.';

/** Every handler of the device API; on a revoked device, every act is refused in words. */
export function deviceApiHandlers(deps: DeviceApiDeps): DeviceApiHandlers {
  const handlers: DeviceApiHandlers = {
    ...sessionHandlers(deps),
    ...permissionHandlers(deps),
    ...moveHandlers(deps.moves, deps.moveHere),
    ...deviceHandlers(deps),
    ...accountHandlers(deps),
    ...backendKeyHandlers(deps),
    ...hostingHandlers(deps),
  };
  const guarded = { ...handlers } as Record<string, (input: never) => Promise<unknown>>;
  for (const method of ACTS) {
    const act = handlers[method] as (input: never) => Promise<unknown>;
    guarded[method] = async (input) => (deps.status.revoked() ? fail('device_revoked', REVOKED_MESSAGE) : act(input));
  }
  return guarded as unknown as DeviceApiHandlers;
}
