/** Handoff records: the durable state machine (see shared/handoff-states.ts). */
import { CarriedSchema } from '../carry.ts';
import { z } from 'zod';
import { HANDOFF_STATES } from '../handoff-states.ts';
import { BlockerSchema } from '../readiness.ts';
import { B64, Generation, Id, Millis, Sha256Hex } from './common.ts';

export const HandoffStateSchema = z.enum(HANDOFF_STATES);

/** The two clear content-addressed fields of the sealed checkpoint. */
export const CheckpointRef = z.strictObject({ digest: Sha256Hex, size: z.number().int().nonnegative() });
export type CheckpointRef = z.infer<typeof CheckpointRef>;

/** A cancel code: a readiness or activation code, `target_timeout`, `user_cancelled`… Clear: it names a kind, not content. */
export const CancelCode = z.string().regex(/^[a-z][a-z0-9_]{1,63}$/);

/**
 * Why a handoff was cancelled, as devices show it: the code and one plain sentence (never in clear on
 * the backend), and the blockers with their fixes when readiness stopped it (the checkpoint's re-check,
 * or the target's checkout).
 */
export const CancelReason = z.strictObject({
  code: CancelCode,
  message: z.string().max(2000),
  blockers: z.array(BlockerSchema).max(5).optional(),
});
export type CancelReason = z.infer<typeof CancelReason>;

/**
 * Why a handoff was cancelled, as it travels and is stored: only the code in clear; the sentence and
 * its details (folders, branches, remotes, paths, commits) sealed to the handoff. `sealed` is null
 * when the backend itself cancelled (a revoked device): it holds no key, so it says only the code.
 */
export const SealedCancelReason = z.strictObject({ code: CancelCode, sealed: B64(16 * 1024).nullable() });
export type SealedCancelReason = z.infer<typeof SealedCancelReason>;

export const HistoryEntry = z.strictObject({ state: HandoffStateSchema, at: Millis, deviceId: Id.nullable() });

/** How the target resumed. Clear: it names a path, not session content. */
export const ResumePath = z.enum(['checkpoint-import', 'summary-continuation']);
export type ResumePath = z.infer<typeof ResumePath>;

/** One drift warning of a packet against the tree it is checked on (`head_moved`, `dirty_tree`…). */
export const DriftWarning = z.object({ code: z.string(), detail: z.string() });
export type DriftWarning = z.infer<typeof DriftWarning>;

/** Where the session runs on the target after a move, and the folder it used there before when that was another one. */
export const TargetFolder = z.object({ path: z.string(), previousPath: z.string().nullable(), changeNote: z.string().nullable() });

/**
 * What the target learned at activation, sealed on the record (never in clear on the backend):
 * `providerChange` when the target continued with another agent (absent on older records).
 */
export const HandoffOutcome = z.object({
  resumeNote: z.string().nullable(),
  driftWarnings: z.array(DriftWarning),
  /** Absent from devices that did not say. */
  targetFolder: TargetFolder.optional(),
  providerChange: z
    .object({ from: z.string().max(64), to: z.string().max(64) })
    .nullable()
    .optional(),
  /** The uncommitted work and unpushed commits the move carried (absent on older records and moves that carried none). */
  carried: CarriedSchema.nullable().optional(),
});
export type HandoffOutcome = z.infer<typeof HandoffOutcome>;

/** The longest sealed commit list a handoff carries (base64url characters): a few hundred repositories. */
export const SEALED_COMMITS_MAX = 64 * 1024;

export const Handoff = z.strictObject({
  id: Id,
  accountId: Id,
  sessionId: Id,
  sourceDeviceId: Id,
  targetDeviceId: Id,
  /**
   * The device that asked for the move: the source (Move) or the target (Move here). Either way the
   * source ran readiness and created the record. Absent from older backends: the source.
   */
  initiatorDeviceId: Id.optional(),
  state: HandoffStateSchema,
  /** The session generation the handoff was created at. */
  generation: Generation,
  checkpoint: CheckpointRef.nullable(),
  /**
   * Whether the backend keeps the checkpoint body for this handoff: from the transition that names it
   * until the handoff no longer needs it (cancelled before the transfer; completed and beyond its
   * session's newest N; cancelled after the transfer and followed by a newer handoff). False without one.
   * Absent from older backends, which keep every body: read as kept.
   */
  checkpointKept: z.boolean().default(true),
  /**
   * The account key version the checkpoint is sealed under (the source's newest when it asked): the
   * target checks it holds it before anything changes hands. A number, not content; null on records
   * made before it was carried.
   */
  keyVersion: z.number().int().positive().nullable(),
  cancelReason: SealedCancelReason.nullable(),
  resumePath: ResumePath.nullable(),
  /** Drift report and resume notes, sealed. */
  sealedOutcome: B64().nullable(),
  /**
   * The commit of each repository the source was at when it asked (its readiness had just read them),
   * sealed to the handoff: the target's prepare fetches just those, or nothing where it has them.
   * Null when the source did not say; absent from older backends.
   */
  sealedCommits: B64(SEALED_COMMITS_MAX).nullable().optional(),
  history: z.array(HistoryEntry),
  createdAt: Millis,
  updatedAt: Millis,
});
export type Handoff = z.infer<typeof Handoff>;

/**
 * POST /v1/handoffs — by the session owner, at its current generation. `initiatorDeviceId`: the
 * device that asked (the caller, or the target when it asked with Move here); absent, the caller.
 */
export const CreateHandoffRequest = z.strictObject({
  handoffId: Id,
  sessionId: Id,
  targetDeviceId: Id,
  initiatorDeviceId: Id.optional(),
  generation: Generation,
  /**
   * The key version the checkpoint will be sealed under (devices always send it): the account's
   * newest, else `key_version_outdated` (the device fetches the newest and asks again).
   */
  keyVersion: z.number().int().positive().optional(),
  /** The commits the source is at, sealed to the handoff (Handoff.sealedCommits). */
  sealedCommits: B64(SEALED_COMMITS_MAX).optional(),
});
export type CreateHandoffRequest = z.infer<typeof CreateHandoffRequest>;

/**
 * The largest sealed checkpoint that may travel in its transition (`checkpointBody`) rather than
 * being put as a blob first: a small one saves the upload's round trip.
 */
export const INLINE_CHECKPOINT_MAX_BYTES = 256 * 1024;

/**
 * POST /v1/handoffs/:id/transitions — compare-and-set on (handoff, expected state, session generation).
 * `checkpoint` is required entering source-relinquished-and-checkpointed; `reason` entering cancelled;
 * `resumePath` entering completed. With `continueTo`, the caller enters `to` and then `continueTo` in
 * the same commit (both history entries at one time): `to` must be a state entered with nothing but
 * itself (PASSABLE_STATES), the caller must be allowed both steps, and the fields are those of
 * `continueTo`. The generation is the one `from` is at. `checkpointBody` (base64url, at most
 * INLINE_CHECKPOINT_MAX_BYTES decoded) is the sealed checkpoint itself, stored under `checkpoint`'s
 * digest before the compare-and-set, instead of a blob put ahead.
 */
export const TransitionRequest = z.strictObject({
  from: HandoffStateSchema,
  to: HandoffStateSchema,
  generation: Generation,
  checkpoint: CheckpointRef.optional(),
  checkpointBody: B64(Math.ceil((INLINE_CHECKPOINT_MAX_BYTES * 4) / 3)).optional(),
  reason: SealedCancelReason.optional(),
  resumePath: ResumePath.optional(),
  sealedOutcome: B64().optional(),
  continueTo: HandoffStateSchema.optional(),
});
export type TransitionRequest = z.infer<typeof TransitionRequest>;

export const HandoffResponse = z.strictObject({ handoff: Handoff });
export const HandoffListResponse = z.strictObject({ handoffs: z.array(Handoff) });

/** The most handoffs one page of a listing holds (`limit`). */
export const HANDOFF_PAGE_MAX = 200;
