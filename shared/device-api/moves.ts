/**
 * The device API for moving a session: which devices can take it and this device's readiness, a
 * move started, asked for (Move here) or cancelled, remediation, a retried activation, continuing
 * with another agent here (Switch agent), and the session's move history.
 */
import { z } from 'zod';
import type { ActionResult, Failure, Result } from '../errors.ts';
import type { EligibilityView, HandoffView } from '../move-views.ts';
import { CarryChoice } from '../carry.ts';
import { PROVIDER_IDS } from '../provider.ts';
import type { ReadinessReport } from '../readiness.ts';
import { DeviceId, SessionId } from './ids.ts';

/** A Move refused by readiness: the whole report, with each blocker's fix. */
export type BlockedMove = Failure<'blocked'> & { report: ReadinessReport };

export type MoveResult = Result<{ handoffId: string }> | BlockedMove;

/** A Move here request older than this is not acted on by the owner (the person who asked has long stopped waiting). */
export const MOVE_HERE_MAX_AGE_MS = 2 * 60_000;

const Repo = z.string().min(1).max(4096);
const Generation = z.number().int().positive();

/** How many moves the history view shows at first, and loads with each "Show older moves". */
export const HISTORY_PAGE = 20;
/** The most moves one history page may ask for. */
export const HISTORY_PAGE_MAX = 100;

export const moveInputs = {
  moveEligibility: z.strictObject({ sessionId: SessionId }),
  /** Without a target: this device's side only (the Move dialog asks as it opens, before a device is picked). */
  checkReadiness: z.strictObject({ sessionId: SessionId, targetDeviceId: DeviceId.optional() }),
  /**
   * `freshClone`: the target clones the repositories afresh instead of using its checkout of them
   * (which blocked the move); `provider`: the agent the target continues with, when not the
   * session's own (a summary continuation); `generation`: the session's generation the button was
   * drawn for — refused, with what changed, when the session has moved on since.
   * `carry`: carry the uncommitted work and unpushed commits along, with the secret-looking files confirmed (null: do not, whatever this device's default; absent: its default).
   */
  startMove: z.strictObject({
    sessionId: SessionId,
    targetDeviceId: DeviceId,
    freshClone: z.boolean().optional(),
    provider: z.enum(PROVIDER_IDS).optional(),
    generation: Generation.optional(),
    carry: CarryChoice.nullable().optional(),
  }),
  /** Continues an owned session here with another agent, from a summary (recorded in its history like a move). */
  switchAgent: z.strictObject({ sessionId: SessionId, provider: z.enum(PROVIDER_IDS) }),
  /**
   * Off the owner: asks the owner to move the session to this device (it runs readiness first);
   * `freshClone`: into a fresh clone here (this device's checkout blocked the move); `generation`: as for startMove.
   */
  moveHere: z.strictObject({ sessionId: SessionId, freshClone: z.boolean().optional(), generation: Generation.optional() }),
  cancelMove: z.strictObject({ sessionId: SessionId }),
  pushRepo: z.strictObject({ sessionId: SessionId, repo: Repo }),
  commitAll: z.strictObject({ sessionId: SessionId, repo: Repo, message: z.string().trim().min(1).max(10_000) }),
  retryActivation: z.strictObject({ sessionId: SessionId }),
  /** One page of the session's moves, newest first: `limit` (default HISTORY_PAGE) of those before the move `before` (the last one of the page before). */
  handoffHistory: z.strictObject({
    sessionId: SessionId,
    before: z.string().min(1).max(200).optional(),
    limit: z.number().int().min(1).max(HISTORY_PAGE_MAX).optional(),
  }),
} as const;

/** What each method of this area resolves to. */
export interface MoveOutputs {
  moveEligibility: EligibilityView[];
  checkReadiness: ReadinessReport;
  startMove: MoveResult;
  /** The request reached the backend for the owner (refused at once when the owner is offline). */
  moveHere: ActionResult;
  cancelMove: ActionResult;
  switchAgent: ActionResult;
  /** Each remediation is followed by a fresh evaluation. */
  pushRepo: { result: ActionResult; report: ReadinessReport };
  commitAll: { result: ActionResult; report: ReadinessReport };
  retryActivation: ActionResult;
  /** Newest first; fewer than asked for when there are no older ones. */
  handoffHistory: HandoffView[];
}
