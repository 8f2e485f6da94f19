/** The runtime's RemediationPort over the git remediation module (push, commit everything). */
import type { GitRunner } from '../../git/git-runner.ts';
import { commitAll, pushRepo } from '../../git/remediation.ts';
import type { RemediationPort } from '../ports.ts';

/** Remediation acts the user asks for, every git call through `run`. */
export function remediationPort(run: GitRunner): RemediationPort {
  const plain = (outcome: { result: { ok: true } | { ok: false; code: string; message: string } }) =>
    outcome.result.ok ? { ok: true as const } : { ok: false as const, code: outcome.result.code, message: outcome.result.message };
  return {
    push: async (repo) => plain(await pushRepo(repo, { run })),
    commitAll: async (repo, message) => plain(await commitAll(repo, message, { run })),
  };
}
