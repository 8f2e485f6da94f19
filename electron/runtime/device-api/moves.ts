/** The device API's move handlers: each delegates to the move service (runtime/move-service.ts). */
import { HISTORY_PAGE, type DeviceApiHandlers } from '../../../shared/device-api.ts';
import type { MoveHere } from '../move-here.ts';
import type { MoveService } from '../move-service.ts';

type MoveMethods =
  | 'moveEligibility'
  | 'checkReadiness'
  | 'startMove'
  | 'moveHere'
  | 'cancelMove'
  | 'pushRepo'
  | 'commitAll'
  | 'retryActivation'
  | 'handoffHistory'
  | 'switchAgent';

/** Eligibility, readiness, starting (or, off the owner, asking for) and cancelling a move, remediation, a retried activation, the history. */
export function moveHandlers(moves: MoveService, moveHere: MoveHere): Pick<DeviceApiHandlers, MoveMethods> {
  return {
    moveHere: async ({ sessionId, freshClone, generation }) => moveHere.ask(sessionId, { freshClone: freshClone === true, generation }),
    moveEligibility: async ({ sessionId }) => moves.eligibility(sessionId),
    checkReadiness: async ({ sessionId, targetDeviceId }) => moves.readiness(sessionId, targetDeviceId),
    startMove: async ({ sessionId, targetDeviceId, freshClone, provider, generation, carry }) =>
      moves.start(sessionId, targetDeviceId, {
        freshClone: freshClone === true,
        ...(provider ? { provider } : {}),
        generation,
        ...(carry !== undefined ? { carry } : {}),
      }),
    cancelMove: async ({ sessionId }) => moves.cancel(sessionId),
    pushRepo: async ({ sessionId, repo }) => moves.push(sessionId, repo),
    commitAll: async ({ sessionId, repo, message }) => moves.commitAll(sessionId, repo, message),
    retryActivation: async ({ sessionId }) => moves.retryActivation(sessionId),
    handoffHistory: async ({ sessionId, before, limit }) => moves.history(sessionId, { limit: limit ?? HISTORY_PAGE, before }),
    switchAgent: async ({ sessionId, provider }) => moves.switchAgent(sessionId, provider),
  };
}
