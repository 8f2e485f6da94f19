/** The device API for an agent's permission requests: answering one, and stopping the turn that asks. */
import { z } from 'zod';
import type { ActionResult } from '../errors.ts';
import { PERMISSION_TEXT_MAX, PermissionDecision } from '../permission-request.ts';
import { SessionId } from './ids.ts';

export const permissionInputs = {
  /**
   * The answer to request `requestId` of the session, asked at `generation` — applied on the owner,
   * or relayed sealed and signed to it from another device.
   */
  answerPermission: z.strictObject({
    sessionId: SessionId,
    requestId: z.string().min(1).max(200),
    generation: z.number().int().positive(),
    decision: PermissionDecision,
    message: z.string().max(PERMISSION_TEXT_MAX).optional(),
  }),
  /** The owner stops the session's turn, denying what it asks first. */
  interruptTurn: z.strictObject({ sessionId: SessionId }),
} as const;

/** What each method of this area resolves to. */
export interface PermissionOutputs {
  answerPermission: ActionResult;
  interruptTurn: ActionResult;
}
