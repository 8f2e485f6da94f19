/**
 * The source's git read when it takes the checkpoint: the readiness re-check (one status per
 * repository) and, alongside it, what the checkpoint and its packet record of each repository —
 * the merge base with the remote's default branch and the files changed since — each asked of git
 * once, and all at once (the session is quiescing: its HEAD does not move meanwhile).
 */
import type { ReadinessReport } from '../../../shared/readiness.ts';
import type { GitRunner } from '../../git/git-runner.ts';
import { evaluateRepo, evaluateSourceReadiness, type RepoEvaluation } from '../../git/readiness.ts';
import type { CheckpointRepo, WorkspaceRef } from '../ports.ts';
import { defaultBaseRef, mergeBase, repoPathsOf, snapshotOf } from './workspace-repos.ts';

const READ_ONLY_ENV = { GIT_OPTIONAL_LOCKS: '0' };

/** A successful git read's stdout, trimmed; null when it failed or said nothing. */
function output(result: { code: number; stdout: string } | null): string | null {
  return result !== null && result.code === 0 && result.stdout.trim() !== '' ? result.stdout.trim() : null;
}

async function readRepo(workspace: string, path: string, run: GitRunner): Promise<{ evaluation: RepoEvaluation; repo: CheckpointRepo }> {
  const base = await defaultBaseRef(path, run);
  const [evaluation, merged, diff] = await Promise.all([
    evaluateRepo(path, { run }),
    base === null ? null : run(['merge-base', 'HEAD', base], { cwd: path, env: READ_ONLY_ENV }),
    base === null ? null : run(['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', `${base}...HEAD`, '--'], { cwd: path }),
  ]);
  const { state } = evaluation;
  const commit = output(merged);
  if (base !== null && commit !== null && diff?.code === 0) {
    const changedFiles = diff.stdout
      .split('\0')
      .filter((f) => f !== '')
      .sort();
    return { evaluation, repo: { ...snapshotOf(workspace, state, { ref: base, commit }), changedFiles } };
  }
  // No default branch recorded (or not shared with HEAD): the usual names, one after the other.
  const found = state.head === null ? null : await mergeBase(path, state.head, run);
  return { evaluation, repo: { ...snapshotOf(workspace, state, found), changedFiles: null } };
}

/** The readiness report of the workspace now and, read with it, each repository as the checkpoint records it. */
export async function checkpointRead(ref: WorkspaceRef, run: GitRunner): Promise<{ report: ReadinessReport; repos: CheckpointRepo[] }> {
  const paths = repoPathsOf(ref);
  if (paths.length === 0) return { report: await evaluateSourceReadiness([ref.workspace], { run }), repos: [] };
  const read = await Promise.all(paths.map((path) => readRepo(ref.workspace, path, run)));
  const blockers = read.flatMap((r) => r.evaluation.blockers);
  const report: ReadinessReport = {
    ready: blockers.length === 0,
    blockers,
    repos: read.map((r) => r.evaluation.state),
    evaluatedAt: Date.now(),
  };
  return { report, repos: read.map((r) => r.repo) };
}
