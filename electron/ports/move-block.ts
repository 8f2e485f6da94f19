/**
 * A blocked move as a session records it: what blocks moving it to which device, who found it, and
 * when. The owner keeps it in the session's local record and appends it to the session's sealed
 * event stream, so every device shows it and a reload keeps it; a re-check that passes or a move
 * that starts clears it (null). Its schema: local-state/record-parts.ts.
 */
import type { Blocker } from '../../shared/readiness.ts';

export interface MoveBlock {
  targetDeviceId: string;
  blockers: Blocker[];
  foundBy: 'readiness' | 'checkpoint' | 'target';
  handoffId: string | null;
  at: number;
}
