/**
 * The checks a pin (pinning.ts) and the target's prepare (prepare-check.ts) make of a repository
 * before any working tree changes, and the refusal each gives: a pin's shape, a clone that is dirty
 * or mid-operation, a branch holding local commits the pin lacks; and the fetch of a branch or of
 * one commit by its id.
 */
import type { Failure } from '../../shared/errors.ts';
import { counted } from '../../shared/plural.ts';
import { redactCredentials } from '../../shared/url-credentials.ts';
import { operationInProgress, resolveGitDirs } from './git-dir.ts';
import { gitFailureText, type GitRunner } from './git-runner.ts';
import type { ParsedStatus } from './status-parser.ts';
import { readStatus } from './submodule-status.ts';
import { runTransfer, transferFailureText, type GitTransferListener } from './transfer-progress.ts';

export type PinFailureCode =
  | 'invalid_pin'
  | 'target_workspace_dirty'
  | 'target_branch_diverged'
  | 'commit_missing'
  | 'pin_failed'
  | 'target_cannot_open_workspace'
  /** The carried changes did not rebuild exactly here (the checkout was put back as it was). */
  | 'carry_mismatch';

/** A refusal with the repository it is about and the exact fix. */
export interface PinFailure extends Failure<PinFailureCode> {
  remote?: string;
  path?: string;
  fix: string;
}

const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A conservative branch-name check (what `git check-ref-format --branch` accepts, minus rarities). */
const BRANCH_NAME = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock(?:\/|$))[A-Za-z0-9._/+-]+(?<![./])$/;

/** A refusal of `code`, its message and fix with every credential redacted. */
export function refuse(
  code: PinFailureCode,
  message: string,
  fix: string,
  where: { remote?: string; path?: string; details?: Record<string, unknown> } = {},
): PinFailure {
  // Every refusal can name a remote URL: none leaves here with credentials in it.
  const remote = where.remote === undefined ? {} : { remote: redactCredentials(where.remote) };
  return { ok: false, code, message: redactCredentials(message), fix: redactCredentials(fix), ...where, ...remote };
}

/** Checks a pin's shape (the commit only when given); null when it is well-formed. */
export function invalidPin(pin: { remote: string; branch: string; commit?: string }): PinFailure | null {
  if (pin.commit !== undefined && !COMMIT_ID.test(pin.commit)) {
    return refuse(
      'invalid_pin',
      `The pinned commit ${JSON.stringify(pin.commit)} is not a full commit id.`,
      'Pin a full 40-hex commit id.',
    );
  }
  if (typeof pin.branch !== 'string' || !BRANCH_NAME.test(pin.branch))
    return refuse('invalid_pin', `The branch name ${JSON.stringify(pin.branch)} is not valid.`, 'Pin a valid branch name.');
  if (typeof pin.remote !== 'string' || pin.remote.trim().length === 0 || pin.remote.includes('\0') || pin.remote.startsWith('-')) {
    return refuse('invalid_pin', 'The pinned remote URL is not valid.', 'Pin the repository by its remote URL.');
  }
  return null;
}

/** The object `rev` names in the repository at `path`, or null. */
export async function revParse(run: GitRunner, path: string, rev: string): Promise<string | null> {
  const result = await run(['rev-parse', '-q', '--verify', rev], { cwd: path });
  return result.code === 0 ? result.stdout.trim() : null;
}

/**
 * Fetches `branch` into its remote-tracking ref, reporting git's progress to `progress`; null when
 * it worked, else why not. With `commit`, that commit alone, into the remote-tracking ref only when
 * that moves it forward: no refs are listed first (a round trip less), no tags follow, and nothing
 * crosses the network when the commit is here already. (An unpack limit of 1 makes git index the
 * pack it receives, which is what reports the bytes received. No automatic maintenance runs after
 * it: a move does not wait for the repository's housekeeping, which the user's own git commands
 * still trigger.)
 */
export async function fetchBranch(
  run: GitRunner,
  path: string,
  remoteName: string,
  branch: string,
  progress?: GitTransferListener,
  commit?: string,
): Promise<string | null> {
  const tracking = `refs/remotes/${remoteName}/${branch}`;
  const [refspec, tags] = commit ? [`${commit}:${tracking}`, ['--no-tags']] : [`+refs/heads/${branch}:${tracking}`, []];
  const args = progress
    ? ['-c', 'fetch.unpackLimit=1', 'fetch', '--progress', '--no-auto-gc', ...tags, remoteName, refspec]
    : ['fetch', '-q', '--no-auto-gc', ...tags, remoteName, refspec];
  const fetched = await runTransfer(run, args, { cwd: path, step: 'fetch', repoPath: path }, progress);
  return fetched.code === 0 ? null : transferFailureText(fetched);
}

/** Reads a clone's status; refuses it as `target_workspace_dirty` (touching nothing) when it has any change or an operation in progress. */
export async function readCleanClone(
  run: GitRunner,
  path: string,
  at: { remote: string; path: string },
): Promise<ParsedStatus | PinFailure> {
  const status = await readStatus(run, path);
  if (!status.ok)
    return refuse('pin_failed', `Reading ${status.where} failed: ${gitFailureText(status.result)}`, `git -C ${status.where} status`, at);
  const parsed = status.status;
  const files = [...parsed.conflicted, ...parsed.changed, ...parsed.untracked];
  const dirs = await resolveGitDirs(path, run);
  const operation = dirs ? operationInProgress(dirs.gitDir) : null;
  if (operation !== null) {
    return refuse(
      'target_workspace_dirty',
      `A ${operation} is in progress in the clone at ${path} on this device; nothing was touched.`,
      `Finish it (git -C ${path} ${operation} --continue) or abort it (git -C ${path} ${operation} --abort), then retry.`,
      { ...at, details: { operation, files: files.slice(0, 20), fileCount: files.length } },
    );
  }
  if (files.length === 0) return parsed;
  return refuse(
    'target_workspace_dirty',
    `The clone at ${path} on this device has ${counted(files.length, 'uncommitted change')}; nothing was touched.`,
    `Commit or stash them in ${path} (git -C ${path} stash -u), then retry.`,
    { ...at, details: { files: files.slice(0, 20), fileCount: files.length } },
  );
}

/**
 * Refuses (`target_branch_diverged`) when the local branch `tip` holds commits that are neither in
 * `pinned` (when given) nor on the remote: moving the branch would lose them. Null when it holds none.
 */
export async function refuseLocalCommits(
  run: GitRunner,
  b: { path: string; remoteName: string; branch: string; tip: string; pinned: string | null },
  at: { remote: string; path: string },
): Promise<PinFailure | null> {
  const args = ['rev-list', '--count', b.tip, ...(b.pinned ? [`^${b.pinned}`] : []), '--not', `--remotes=${b.remoteName}`];
  const extra = await run(args, { cwd: b.path });
  const count = Number(extra.stdout.trim());
  if (extra.code === 0 && count === 0) return null;
  const target = b.pinned ? b.pinned.slice(0, 7) : `${b.remoteName}/${b.branch}`;
  return refuse(
    'target_branch_diverged',
    `${b.branch} in ${b.path} holds ${count ? counted(count, 'local commit') : 'some local commits'} that ${b.pinned ? 'the pinned commit does not contain' : 'are not on the remote'}.`,
    `Keep them on another branch (git -C ${b.path} branch keep/${b.branch} ${b.branch}), then move ${b.branch} to ${target} (git -C ${b.path} reset --keep ${target}) and retry.`,
    { ...at, details: { localCommits: count } },
  );
}
