/** The runtime's RemediationPort over the git remediation module (push, commit everything). */
import { fail, ok, type ActionResult, type Result } from '../../../shared/errors.ts';
import type { GitRunner } from '../../git/git-runner.ts';
import { forkBranch } from '../../git/fork-branch.ts';
import { commitAll, pushRepo } from '../../git/remediation.ts';
import type { RemediationPort } from '../../ports/git.ts';

/** The act's own result without what it yields (the runtime evaluates readiness afresh after it). */
function done(outcome: { result: Result<unknown> }): ActionResult {
  return outcome.result.ok ? ok(undefined) : fail(outcome.result.code, outcome.result.message);
}

/** Remediation acts the user asks for: reads through the guarded `run`, the acts through `asUser` (the user's own git). */
export function remediationPort(run: GitRunner, asUser: GitRunner): RemediationPort {
  return {
    push: async (repo) => done(await pushRepo(repo, { run, asUser })),
    commitAll: async (repo, message) => done(await commitAll(repo, message, { run, asUser })),
    forkBranch: (repo, branch) => forkBranch(repo, branch, { run, asUser }),
  };
}
