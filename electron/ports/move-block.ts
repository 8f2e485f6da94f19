/**
 * A blocked move as a session records it: what blocks moving it to which device, who found it, and
 * when. The owner keeps it in the session's local record and appends it to the session's sealed
 * event stream, so every device shows it and a reload keeps it; a re-check that passes or a move
 * that starts clears it (null).
 */
import { z } from 'zod';
import { BlockerSchema } from '../../shared/readiness.ts';

export const MoveBlock = z.object({
  targetDeviceId: z.string().max(64),
  blockers: z.array(BlockerSchema).max(50),
  foundBy: z.enum(['readiness', 'checkpoint', 'target']),
  handoffId: z.string().max(64).nullable(),
  at: z.number(),
});
export type MoveBlock = z.infer<typeof MoveBlock>;
