/**
 * A blocked move as a session records it: what blocks moving it to which device, who found it,
 * when, at which generation and at whose request. The owner keeps it in the session's local record
 * and appends it to the session's sealed event stream, so every device shows it and a reload keeps
 * it; a re-check that passes or a move that starts clears it (null). Its schema:
 * local-state/record-parts.ts.
 */
import type { Blocker } from '../../shared/readiness.ts';

export interface MoveBlock {
  targetDeviceId: string;
  blockers: Blocker[];
  foundBy: 'readiness' | 'checkpoint' | 'target';
  handoffId: string | null;
  at: number;
  /**
   * The session's generation when it was found: a block names the owner of that generation as its
   * source, so one kept past a move of the session (0: recorded before this was kept) is shown nowhere.
   */
  generation: number;
  /**
   * The device that asked for the move by Move here (its target), or null for the owner's own Move:
   * once nothing blocks, the owner moves the session there on its own.
   */
  askedBy: string | null;
}
