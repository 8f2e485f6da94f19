/**
 * The readiness report: evaluated before anything moves (electron/git/readiness.ts, electron/handoff/move-request.ts).
 * Each blocker carries a code, one plain sentence and the exact fix.
 */
import { z } from 'zod';
import type { CarryOffer } from './carry.ts';

export const SOURCE_BLOCKER_CODES = [
  'dirty_tree',
  'unpushed_commits',
  'no_upstream',
  'detached_head',
  'operation_in_progress',
  /** The workspace path is missing or is not a git repository. */
  'not_a_repository',
  /** Carrying the changes: the capsule is over this device's limit (or the backend's), naming the largest files. */
  'carry_too_large',
  /** Carrying the changes: files that look like secrets the person has not confirmed by name. */
  'carry_unconfirmed_files',
] as const;
export const TARGET_BLOCKER_CODES = [
  'target_offline',
  'target_not_enrolled',
  'target_cannot_open_workspace',
  'target_missing_provider',
  'target_missing_key_version',
  /** The target's checkout of a repository (where the session ran there, or one it was pointed at) has uncommitted work. */
  'target_workspace_dirty',
  /** The target's checkout is on local commits the pinned commit does not contain (it cannot fast-forward). */
  'target_branch_diverged',
] as const;
export const SESSION_BLOCKER_CODES = [
  'not_owner',
  'handoff_in_progress',
  /** The session's checkpoint, as estimated, is over the largest body the sync backend takes. */
  'checkpoint_too_large',
] as const;

export type BlockerCode =
  (typeof SOURCE_BLOCKER_CODES)[number] | (typeof TARGET_BLOCKER_CODES)[number] | (typeof SESSION_BLOCKER_CODES)[number];

/**
 * A remediation the UI may offer as an explicit user act (never run automatically): push or commit a
 * repository here, or move into a fresh clone on the target instead of its checkout that blocked it.
 */
export type RemediationAction =
  { kind: 'push'; repo: string } | { kind: 'commit'; repo: string } | { kind: 'fresh-clone'; deviceId: string };

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
  /** Carry my changes would take this blocker's work along instead (ReadinessReport.carry says what). */
  carryable?: boolean;
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
  /** Where its work can be carried (Carry my changes): the commit on the remote it would be carried against. */
  carryBase?: string;
}

export interface ReadinessReport {
  ready: boolean;
  blockers: Blocker[];
  repos: RepoState[];
  evaluatedAt: number;
  /** What Carry my changes would take, when some blocker is `carryable` (absent otherwise). */
  carry?: CarryOffer;
}

/** A blocker as it travels sealed (in a cancel reason or a session's blocked state): read, never trusted for more than display. */
export const BlockerSchema = z.object({
  code: z.string().max(64) as z.ZodType<BlockerCode>,
  repo: z.string().max(4096).optional(),
  message: z.string().max(2000),
  fix: z.string().max(2000),
  action: z
    .union([
      z.object({ kind: z.enum(['push', 'commit']), repo: z.string().max(4096) }),
      z.object({ kind: z.literal('fresh-clone'), deviceId: z.string().max(64) }),
    ])
    .optional(),
  carryable: z.boolean().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
}) as z.ZodType<Blocker>;
