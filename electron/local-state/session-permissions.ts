/**
 * What a session's record keeps of its permission requests (the `permissions` field of a local
 * session): the requests pending now, how the latest ones ended, the "Allow for this session" rules,
 * and — on the owner — how far it has read the answers other devices posted and which it has seen
 * (and the Move here requests it acted on).
 * The owner and every other device fold the same events into it (runtime/permissions/).
 */
import { z } from 'zod';
import { PermissionRuleSchema } from '../../shared/permission-request.ts';
import { PermissionOutcomeViewSchema, PermissionRequestViewSchema } from '../../shared/permission-views.ts';

/** How many ended requests a record keeps (the newest), for "already answered on …". */
export const OUTCOMES_KEPT = 20;
/** How many answer ids the owner keeps to refuse a replay (the newest). */
export const ANSWER_IDS_KEPT = 500;

export const SessionPermissionsSchema = z.object({
  /** Pending requests, oldest first (the order they are shown and answered in). */
  pending: z.array(PermissionRequestViewSchema),
  outcomes: z.array(PermissionOutcomeViewSchema),
  rules: z.array(PermissionRuleSchema),
  /** The owner's read cursor in the session's answers on the backend. */
  answerCursor: z.number().int().nonnegative(),
  /** Answer ids the owner has applied or refused. */
  seenAnswers: z.array(z.string()),
  /** Move here requests the owner has acted on, with the time each was asked (older records: none). */
  seenMoveHere: z.array(z.object({ id: z.string(), at: z.number() })).default([]),
});
export type SessionPermissions = z.infer<typeof SessionPermissionsSchema>;

/** A record with no permission requests yet (and what older records read as). */
export function noPermissions(): SessionPermissions {
  return { pending: [], outcomes: [], rules: [], answerCursor: 0, seenAnswers: [], seenMoveHere: [] };
}
