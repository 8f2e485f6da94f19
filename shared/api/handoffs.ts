/** Handoff records: the durable state machine (see shared/handoff-states.ts). */
import { z } from 'zod';
import { HANDOFF_STATES } from '../handoff-states.ts';
import { B64, Generation, Id, Millis, Sha256Hex } from './common.ts';

export const HandoffStateSchema = z.enum(HANDOFF_STATES);

/** The two clear content-addressed fields of the sealed checkpoint. */
export const CheckpointRef = z.strictObject({ digest: Sha256Hex, size: z.number().int().nonnegative() });
export type CheckpointRef = z.infer<typeof CheckpointRef>;

/** Why a handoff was cancelled: a code (readiness or activation code, `target_timeout`, `user_cancelled`…). */
export const CancelReason = z.strictObject({
  code: z.string().regex(/^[a-z][a-z0-9_]{1,63}$/),
  message: z.string().max(2000),
});
export type CancelReason = z.infer<typeof CancelReason>;

export const HistoryEntry = z.strictObject({ state: HandoffStateSchema, at: Millis, deviceId: Id.nullable() });

/** How the target resumed. Clear: it names a path, not session content. */
export const ResumePath = z.enum(['checkpoint-import', 'summary-continuation']);
export type ResumePath = z.infer<typeof ResumePath>;

/** One drift warning of a packet against the tree it is checked on (`head_moved`, `dirty_tree`…). */
export const DriftWarning = z.object({ code: z.string(), detail: z.string() });
export type DriftWarning = z.infer<typeof DriftWarning>;

/** What the target learned at activation, sealed on the record (never in clear on the backend). */
export const HandoffOutcome = z.object({ resumeNote: z.string().nullable(), driftWarnings: z.array(DriftWarning) });
export type HandoffOutcome = z.infer<typeof HandoffOutcome>;

export const Handoff = z.strictObject({
  id: Id,
  accountId: Id,
  sessionId: Id,
  sourceDeviceId: Id,
  targetDeviceId: Id,
  state: HandoffStateSchema,
  /** The session generation the handoff was created at. */
  generation: Generation,
  checkpoint: CheckpointRef.nullable(),
  cancelReason: CancelReason.nullable(),
  resumePath: ResumePath.nullable(),
  /** Drift report and resume notes, sealed. */
  sealedOutcome: B64().nullable(),
  history: z.array(HistoryEntry),
  createdAt: Millis,
  updatedAt: Millis,
});
export type Handoff = z.infer<typeof Handoff>;

/** POST /v1/handoffs — by the session owner, at its current generation. */
export const CreateHandoffRequest = z.strictObject({ handoffId: Id, sessionId: Id, targetDeviceId: Id, generation: Generation });

/**
 * POST /v1/handoffs/:id/transitions — compare-and-set on (handoff, expected state, session generation).
 * `checkpoint` is required entering source-relinquished-and-checkpointed; `reason` entering cancelled;
 * `resumePath` entering completed.
 */
export const TransitionRequest = z.strictObject({
  from: HandoffStateSchema,
  to: HandoffStateSchema,
  generation: Generation,
  checkpoint: CheckpointRef.optional(),
  reason: CancelReason.optional(),
  resumePath: ResumePath.optional(),
  sealedOutcome: B64().optional(),
});
export type TransitionRequest = z.infer<typeof TransitionRequest>;

export const HandoffResponse = z.strictObject({ handoff: Handoff });
export const HandoffListResponse = z.strictObject({ handoffs: z.array(Handoff) });
