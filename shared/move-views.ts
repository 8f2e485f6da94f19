/**
 * The views of moving a session (shared/device-api.ts re-exports them): which devices can take it,
 * a handoff as the stepper shows it, a blocked move, where the session landed, a long step's
 * progress and the notice a move ends with.
 */
import type { CancelReason, DriftWarning, ResumePath } from './api/handoffs.ts';
import type { CarriedView } from './carry.ts';
import type { CodedMessage } from './errors.ts';
import type { HandoffState } from './handoff-states.ts';
import type { ProviderId } from './provider.ts';
import type { Blocker } from './readiness.ts';

export interface EligibilityView {
  deviceId: string;
  name: string;
  eligible: boolean;
  /** Why not, when not eligible. */
  reason: CodedMessage | null;
  /** Since when that reason holds, as far as this device knows (null when eligible or unknown). */
  since: number | null;
  /** When this device judged it (eligibility is only what is known now). */
  checkedAt: number;
  /** What an eligible device will do differently (e.g. its CLI is older: summary continuation), or null. */
  warning: CodedMessage | null;
  /** It lacks the session's agent and continues with this one instead, by summary continuation (null: the same agent). */
  continueWith: ProviderId | null;
  /** The target's other real agents the person may continue with instead, each by summary continuation (empty: none). */
  otherAgents: ProviderId[];
}

export interface HandoffView {
  id: string;
  sessionId: string;
  sourceDeviceId: string;
  sourceName: string;
  targetDeviceId: string;
  targetName: string;
  /** The device that asked for the move: the source (Move), or the target (Move here). */
  initiatorDeviceId: string;
  state: HandoffState;
  generation: number;
  /** Each reached state with its time. */
  history: { state: HandoffState; at: number; deviceId: string | null }[];
  cancelReason: CancelReason | null;
  resumePath: ResumePath | null;
  /** Why that resume path (e.g. the import check that failed), when known to this device. */
  resumeNote: string | null;
  /** Drift warnings recorded at activation, when known to this device. */
  driftWarnings: DriftWarning[];
  /** Remediation when a re-check at the checkpoint, or the target's prepare, cancelled the move. */
  blockers: Blocker[];
  /** Where the session runs on the target after the move, when this device knows it. */
  targetFolder: TargetFolderView | null;
  /** The move continued the session with another agent (when known to this device), else null. */
  providerChange: { from: string; to: string } | null;
  /** The backend still keeps its checkpoint (Handoff.checkpointKept): Fork from here needs it. */
  checkpointKept: boolean;
  /** A completed move that carried uncommitted work: what, and where the source keeps its copy (null: none, or not known here). */
  carried: CarriedView | null;
}

/** Where a move put the session on its target, and whether that is not the folder it used there last. */
export interface TargetFolderView {
  /** The target's folder of the session now. */
  path: string;
  /** The folder the session ran in on the target before, when that was another one (else null). */
  previousPath: string | null;
  /** Why the folder changed, in one sentence, when it did. */
  changeNote: string | null;
}

/**
 * A move of the session that is blocked: part of the session's state (sealed to the session like
 * its transcript, so it survives a reload and shows on every device), until a re-check passes or a
 * move starts. It is of the session's generation now, from its owner now: one left from before a move
 * is in no view.
 */
export interface MoveBlockView {
  /** The owner that found it (the session's owner now) and the generation it was found at (the session's now). */
  sourceDeviceId: string;
  sourceName: string;
  generation: number;
  targetDeviceId: string;
  targetName: string;
  /** The device that asked for the move by Move here (the target), or null: the owner's own Move. Once nothing blocks, the owner moves it there on its own. */
  askedBy: string | null;
  /** Each blocker with its sentence, fix and in-place action. */
  blockers: Blocker[];
  /**
   * Who found them: this session's owner checking readiness, its re-check when taking the checkpoint,
   * or the target preparing (its checkout cannot take the session as it is: known by trying again).
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
