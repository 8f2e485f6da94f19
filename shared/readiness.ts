/**
 * The readiness report: evaluated before anything moves (electron/git/readiness.ts, electron/handoff/move-request.ts).
 * Each blocker carries a code, one plain sentence and the exact fix.
 */

export const SOURCE_BLOCKER_CODES = [
  'dirty_tree',
  'unpushed_commits',
  'no_upstream',
  'detached_head',
  'operation_in_progress',
  /** The workspace path is missing or is not a git repository. */
  'not_a_repository',
] as const;
export const TARGET_BLOCKER_CODES = [
  'target_offline',
  'target_not_enrolled',
  'target_cannot_open_workspace',
  'target_missing_provider',
  'target_missing_key_version',
] as const;
export const SESSION_BLOCKER_CODES = [
  'not_owner',
  'handoff_in_progress',
  /** The session's checkpoint, as estimated, is over the largest body the sync backend takes. */
  'checkpoint_too_large',
] as const;

export type BlockerCode =
  (typeof SOURCE_BLOCKER_CODES)[number] | (typeof TARGET_BLOCKER_CODES)[number] | (typeof SESSION_BLOCKER_CODES)[number];

/** A remediation the UI may offer as an explicit user act (never run automatically). */
export type RemediationAction = { kind: 'push'; repo: string } | { kind: 'commit'; repo: string };

export interface Blocker {
  code: BlockerCode;
  /** The repository path the blocker is about, when it is about one. */
  repo?: string;
  /** One plain sentence. */
  message: string;
  /** The exact fix, e.g. `git push -u origin feature/x`. */
  fix: string;
  /** Offered remediation, if any. */
  action?: RemediationAction;
  /** Code-specific facts: files (bounded) and fileCount, ahead and upstream, operation… */
  details?: Record<string, unknown>;
}

/** What readiness read of one repository. */
export interface RepoState {
  path: string;
  branch: string | null;
  upstream: string | null;
  head: string | null;
  ahead: number;
  behind: number;
  remoteUrl: string | null;
}

export interface ReadinessReport {
  ready: boolean;
  blockers: Blocker[];
  repos: RepoState[];
  evaluatedAt: number;
}
