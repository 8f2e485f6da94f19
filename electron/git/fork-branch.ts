/**
 * A fork's own branch: made at the commit a checkpoint pinned (`git switch -c`, through the user's
 * git), then pushed with its upstream set, so the fork is ready to move from the start
 * (readiness blocks a branch with no upstream). The branch it was made from is not touched.
 */
import { fail, ok, type Result } from '../../shared/errors.ts';
import { gitFailureText } from './git-runner.ts';
import { pushRepo, type RemediationDeps } from './remediation.ts';

/** Whether the branch was made, and whether it was pushed (why not, when not). */
export interface ForkBranchDone {
  branch: string;
  pushed: Result<unknown>;
}

/** Makes branch `branch` at the HEAD of `repo` and pushes it (setting its upstream); fails only when the branch could not be made. */
export async function forkBranch(repo: string, branch: string, deps: RemediationDeps): Promise<Result<ForkBranchDone>> {
  const made = await deps.asUser(['switch', '-q', '--no-track', '-c', branch], { cwd: repo });
  if (made.code !== 0) return fail('fork_branch_failed', `The fork's branch ${branch} could not be made: ${gitFailureText(made)}`);
  const { result } = await pushRepo(repo, deps);
  return ok({ branch, pushed: result.ok ? ok(undefined) : fail(result.code, result.message) });
}
