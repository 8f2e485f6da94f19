/** The device API's permission handlers: each delegates to the session service (runtime/permissions/ does the work). */
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import type { SessionService } from '../sessions/session-service.ts';

export interface PermissionHandlerDeps {
  sessions: Pick<SessionService, 'answerPermission' | 'interruptTurn'>;
}

/** Answering a permission request (on any device of the account), stopping a turn (on the owner). */
export function permissionHandlers({ sessions }: PermissionHandlerDeps): Pick<DeviceApiHandlers, 'answerPermission' | 'interruptTurn'> {
  return {
    answerPermission: async ({ sessionId, requestId, generation, decision, message }) =>
      sessions.answerPermission(sessionId, requestId, generation, message === undefined ? { decision } : { decision, message }),
    interruptTurn: async ({ sessionId }) => sessions.interruptTurn(sessionId),
  };
}
