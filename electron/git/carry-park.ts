/**
 * The source's copy of carried work, parked once the target has completed the move: whatever the
 * checkout holds uncommitted (what was carried, and anything done here since) goes into a named
 * stash ("baton: carried to desk at 18:05 (handoff …)"), and the branch goes back to the commit on
 * the remote the work was carried against, so the checkout is clean at the base and a later move
 * back finds it so. The unpushed commits stay reachable from the stash (its parent is the old HEAD),
 * and a clean checkout that only had unpushed commits gets a stash of them all the same. Nothing is
 * dropped: a checkout whose HEAD moved since the move is stashed but left on its commit.
 *
 * Idempotent: run again (after a restart), a stash already named for the handoff is not made twice.
 */
import { fail, ok, type Result } from '../../shared/errors.ts';
import { gitFailureText, type GitRunner } from './git-runner.ts';
import { readStatus } from './submodule-status.ts';

/** Where the work was carried from and to: the base on the remote and the HEAD the capsule had. */
export interface ParkRequest {
  base: string;
  head: string;
  /** The stash's message (shared/carry.ts carriedStashName), which names the handoff. */
  message: string;
  /** The handoff's id, by which an earlier park of the same move is known. */
  handoffId: string;
}

/** How the checkout was left: the stash made (its message), and whether the branch went back to the base. */
export interface Parked {
  stash: string;
  atBase: boolean;
}

/** Whether a stash of `repo` already names the handoff. */
async function alreadyStashed(run: GitRunner, repo: string, handoffId: string): Promise<boolean> {
  const listed = await run(['stash', 'list', '--format=%gs'], { cwd: repo });
  return listed.code === 0 && listed.stdout.split('\n').some((line) => line.includes(`(handoff ${handoffId})`));
}

/** Who makes the stash of a clean checkout's commits (the time is now). */
const STASH_IDENTITY = {
  GIT_AUTHOR_NAME: 'Baton',
  GIT_AUTHOR_EMAIL: 'baton@localhost',
  GIT_COMMITTER_NAME: 'Baton',
  GIT_COMMITTER_EMAIL: 'baton@localhost',
};

/** A stash holding no file change whose parent is HEAD: it keeps HEAD's commits reachable under the stash's name. */
async function stashHead(run: GitRunner, repo: string, message: string): Promise<string | null> {
  const tree = 'HEAD^{tree}';
  const index = await run(['commit-tree', tree, '-p', 'HEAD', '-m', `index on ${message}`], { cwd: repo, env: STASH_IDENTITY });
  if (index.code !== 0) return gitFailureText(index);
  const work = await run(['commit-tree', tree, '-p', 'HEAD', '-p', index.stdout.trim(), '-m', message], { cwd: repo, env: STASH_IDENTITY });
  if (work.code !== 0) return gitFailureText(work);
  const stored = await run(['stash', 'store', '-m', message, work.stdout.trim()], { cwd: repo });
  return stored.code === 0 ? null : gitFailureText(stored);
}

/** Parks the carried work of `repo` (see the file header); a failure says why, and the checkout keeps everything it had. */
export async function parkCarried(run: GitRunner, repo: string, request: ParkRequest): Promise<Result<Parked>> {
  const read = await readStatus(run, repo, { args: ['--untracked-files=all'] });
  if (!read.ok) return fail('park_failed', `Reading ${repo} failed: ${gitFailureText(read.result)}`);
  const { status } = read;
  const dirty = status.changed.length + status.untracked.length + status.conflicted.length > 0;
  if (!(await alreadyStashed(run, repo, request.handoffId))) {
    const stashed = dirty ? await run(['stash', 'push', '--include-untracked', '-q', '-m', request.message], { cwd: repo }) : null;
    if (stashed && stashed.code !== 0) return fail('park_failed', `Stashing the carried changes failed: ${gitFailureText(stashed)}`);
    if (!dirty) {
      const kept = await stashHead(run, repo, request.message);
      if (kept !== null) return fail('park_failed', `Keeping the carried commits in a stash failed: ${kept}`);
    }
  } else if (dirty) {
    return fail(
      'park_failed',
      'The carried changes were stashed already, and the checkout holds changes made since; they are left as they are.',
    );
  }
  // Only a checkout still where the move found it goes back to the base.
  if (status.head !== request.head || request.head === request.base)
    return ok({ stash: request.message, atBase: status.head === request.base });
  const reset = await run(['reset', '-q', '--keep', request.base], { cwd: repo });
  if (reset.code !== 0)
    return fail('park_failed', `The changes are in the stash, but moving the branch back failed: ${gitFailureText(reset)}`);
  return ok({ stash: request.message, atBase: true });
}
