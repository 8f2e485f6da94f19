/**
 * The views of moving a session (shared/device-api.ts re-exports them): a blocked move, a long
 * step's progress and the notice a move ends with.
 */
import type { Blocker } from './readiness.ts';

/**
 * A move of the session that is blocked: part of the session's state (so it survives a reload),
 * until a re-check passes or a move starts.
 */
export interface MoveBlockView {
  targetDeviceId: string;
  targetName: string;
  /** Each blocker with its sentence, fix and in-place action. */
  blockers: Blocker[];
  /**
   * Who found them: this session's owner checking readiness, its re-check when taking the checkpoint,
   * or the target preparing.
   */
  foundBy: 'readiness' | 'checkpoint' | 'target';
  /** The handoff the blockers ended, when one had begun. */
  handoffId: string | null;
  at: number;
}

/** The long steps of a move whose progress the stepper and the device log show. */
export type ProgressStep = 'fetch' | 'clone' | 'upload' | 'download' | 'import';

/**
 * How far one long step of a move has got: git's own progress for a fetch or clone on the target,
 * the bytes of the checkpoint upload or download, the provider import. Unknown figures are null.
 */
export interface HandoffProgressView {
  handoffId: string;
  sessionId: string;
  step: ProgressStep;
  /** What the step works on, in words (a repository's folder, "checkpoint"); never a credential. */
  label: string;
  doneBytes: number | null;
  totalBytes: number | null;
  /** 0–100 when known. */
  percent: number | null;
  at: number;
}

/**
 * What a desktop notification says: a move completed, was blocked, or left the session needing
 * attention; or an agent asks permission (shared/permission-views.ts). `body` names the session or
 * the device; clicking opens the session's run view.
 */
export interface MoveNoticeView {
  kind: 'completed' | 'blocked' | 'attention' | 'permission';
  sessionId: string;
  handoffId: string | null;
  /** "Move completed", "Move blocked", "Needs attention", "Permission request". */
  title: string;
  body: string;
  at: number;
}
