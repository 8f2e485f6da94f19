/**
 * Git work as the device's parts see it (implemented over git/ in runtime/adapters/git-port.ts and
 * remediation-port.ts): the repositories of a workspace, readiness, the target's prepare and pin,
 * and the remediation acts the user may ask for.
 */
import type { ActionResult, Result } from '../../shared/errors.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import type { CapsuleToApply } from '../git/carry-apply.ts';
import type { Capsule } from '../git/carry-capsule.ts';
import type { RepoCarry } from '../git/carry-offer.ts';
import type { Parked, ParkRequest } from '../git/carry-park.ts';
import type { GitTransferListener } from '../git/transfer-progress.ts';
import type { CheckedOut } from '../packet/drift.ts';
import type { RepoRef } from './repo-ref.ts';

/** One repository of a workspace as git reads it now. */
export interface RepoSnapshot extends RepoRef {
  path: string;
  head: string | null;
  mergeBase: string | null;
  /** The remote-tracking ref the merge base was taken with (`origin/main`), null without one. */
  baseRef: string | null;
}

/**
 * A repository as the checkpoint records it: its snapshot, the files changed since the merge base
 * (null: not read) and those uncommitted (what the move carries; absent: none, its tree is clean).
 */
export interface CheckpointRepo extends RepoSnapshot {
  changedFiles: string[] | null;
  uncommitted?: string[];
}

/** A repository as the pin left it: on `branch` at `head`, and what its verifying status read showed uncommitted. */
export interface CheckedOutRepo extends CheckedOut {
  path: string;
}

/** A repository pinned by a checkpoint. */
export interface PinnedRepo extends RepoRef {
  commit: string;
  mergeBase: string | null;
}

/** A repository to pin, with the work carried to it (its capsule, whose HEAD is `commit`), if any. */
export interface PinRequest extends PinnedRepo {
  carry?: CapsuleToApply;
}

/** What the checkpoint's git read found: the readiness report, each repository as recorded, and each one's work that can be carried. */
export interface CheckpointRead {
  report: ReadinessReport;
  repos: CheckpointRepo[];
  carries: RepoCarry[];
}

/** A session workspace on this device: its folder and its repositories (empty: found in the folder). */
export interface WorkspaceRef {
  workspace: string;
  repoPaths: string[];
}

/**
 * Where this device looks for a session's repositories on a move here, and clones the ones it lacks
 * (handoff/checkout-places.ts makes it for a session).
 */
export interface CheckoutPlaces {
  /** The device's workspace root: searched two levels deep, and where missing repositories are cloned. */
  workspaceRoot: string;
  /** Checkouts looked at first, in order: where this device ran the session before, then folders sessions were started in here. */
  homes: readonly string[];
  /** Checkouts other sessions of this device run in: never matched, wherever they are. */
  inUse: readonly string[];
  /** Clone every repository afresh under the workspace root, whatever is found (chosen over a home checkout that blocked the move). */
  fresh: boolean;
}

/** Git work of the runtime (git/readiness.ts, git/pinning.ts). */
export interface GitPort {
  /** Whether git runs on this device. */
  available(): Promise<boolean>;
  /** The repositories of a workspace (its repoPaths, else the folder itself or its direct child repos). */
  repos(workspace: WorkspaceRef): Promise<RepoSnapshot[]>;
  /** The source half of the readiness report (dirty tree, unpushed commits…) over every repository. */
  sourceReadiness(workspace: WorkspaceRef): Promise<ReadinessReport>;
  /** At checkpoint time: the source readiness report and, read with it, each repository as the checkpoint records it. */
  checkpointRead(workspace: WorkspaceRef): Promise<CheckpointRead>;
  /**
   * Read only, for a checkpoint taken ahead of the move's own: as checkpointRead, on the status
   * sourceReadiness read of this workspace under 2 s ago when it found it ready (no status read
   * then), else reading anew.
   */
  checkpointReadOnRecentReadiness(workspace: WorkspaceRef): Promise<CheckpointRead>;
  /** Source, a move that carries work: the capsule of one repository's carried work, built in `scratch` (nothing of the repository is written). */
  buildCapsule(carry: RepoCarry, scratch: string): Promise<Result<Capsule>>;
  /** Source, once the target completed a move that carried work: its copy parked in a named stash, the checkout clean at the base. */
  parkCarried(repoPath: string, request: ParkRequest): Promise<Result<Parked>>;
  /** Remote URLs of the repositories this device can open under its workspace root. */
  remotesUnder(root: string): Promise<string[]>;
  /**
   * Target prepare: can open or clone each repo and fetch what the move needs — the commit the source
   * named (nothing when it is here), else its branch (progress to `progress`); a failure carries a code.
   */
  prepare(
    repos: (RepoRef & { commit?: string })[],
    places: CheckoutPlaces,
    progress?: GitTransferListener,
  ): Promise<Result<{ workspace: string }>>;
  /** Read only: the workspace `pin` would give for `repos` (each a clone found here, or the folder it would be cloned to); null for none. */
  locate(repos: PinnedRepo[], places: CheckoutPlaces): Promise<string | null>;
  /**
   * Read only, as the target claims the session: begins the clean-status read of each of `repos`
   * already cloned here, for the `pin` asked for right after to take instead of reading again. Where
   * `prepare` found the clones moments ago, they are not looked for again (by this read or the pin).
   */
  startCloneStatusReads(repos: RepoRef[], places: CheckoutPlaces): void;
  /** Target activation: every repo at exactly its pinned commit (fetches and clones report to `progress`); the workspace path. */
  pin(
    repos: PinRequest[],
    places: CheckoutPlaces,
    progress?: GitTransferListener,
  ): Promise<Result<{ workspace: string; repoPaths: string[]; checkedOut: CheckedOutRepo[] }>>;
}

/** Git remediation acts the user may ask for (never run automatically). */
export interface RemediationPort {
  push(repoPath: string): Promise<ActionResult>;
  commitAll(repoPath: string, message: string): Promise<ActionResult>;
  /** A fork's own branch at the repository's HEAD, pushed with its upstream (`pushed` says why not, when not). */
  forkBranch(repoPath: string, branch: string): Promise<Result<{ branch: string; pushed: Result<unknown> }>>;
}
