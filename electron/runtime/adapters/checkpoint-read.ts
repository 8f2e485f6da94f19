/**
 * The source's git read when it takes the checkpoint: the readiness re-check (one status per
 * repository) and, alongside it, what the checkpoint and its packet record of each repository —
 * the merge base with the remote's default branch and the files changed since — each asked of git
 * once, and all at once (the session is quiescing: its HEAD does not move meanwhile). A repository
 * whose HEAD is the default branch's tip (read from the ref files, and confirmed by the status) is
 * its own merge base with nothing changed since: git is not asked.
 */
import type { ReadinessReport } from '../../../shared/readiness.ts';
import type { GitRunner } from '../../git/git-runner.ts';
import type { RepoCarry } from '../../git/carry-offer.ts';
import { evaluateRepo, evaluateSourceReadiness, reportOf, type RepoEvaluation } from '../../git/readiness.ts';
import type { CheckpointRepo, WorkspaceRef } from '../../ports/git.ts';
import { readRef, readSymbolicRef, resolveGitDirs } from '../../git/git-dir.ts';
import { mergeBase, repoPathsOf, snapshotOf } from './workspace-repos.ts';

const READ_ONLY_ENV = { GIT_OPTIONAL_LOCKS: '0' };

/** A successful git read's stdout, trimmed; null when it failed or said nothing. */
function output(result: { code: number; stdout: string } | null): string | null {
  return result !== null && result.code === 0 && result.stdout.trim() !== '' ? result.stdout.trim() : null;
}

/** The remote's default branch (`origin/main`, from origin/HEAD), and whether HEAD's ref file names its tip. */
async function baseOf(path: string, run: GitRunner): Promise<{ base: string | null; tip: string | null }> {
  const dirs = await resolveGitDirs(path, run);
  if (dirs === null) return { base: null, tip: null };
  const target = readSymbolicRef(dirs.commonDir, 'refs/remotes/origin/HEAD');
  if (target === null) return { base: null, tip: null };
  const head = readSymbolicRef(dirs.gitDir, 'HEAD');
  const tip = readRef(dirs.commonDir, target);
  const headTip = head === null ? null : readRef(dirs.commonDir, head);
  return { base: target.replace(/^refs\/remotes\//, ''), tip: tip !== null && tip === headTip ? tip : null };
}

/** The merge base of HEAD with `base` and the files changed since, asked of git together. */
function askBase(path: string, base: string | null, run: GitRunner) {
  return Promise.all([
    base === null ? null : run(['merge-base', 'HEAD', base], { cwd: path, env: READ_ONLY_ENV }),
    base === null ? null : run(['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', `${base}...HEAD`, '--'], { cwd: path }),
  ]);
}

/** One repository as the checkpoint records it; `known`: its readiness read already made (no status read then). */
async function readRepo(
  workspace: string,
  path: string,
  run: GitRunner,
  known?: RepoEvaluation,
): Promise<{ evaluation: RepoEvaluation; repo: CheckpointRepo }> {
  // The status read starts first: the ref files are read while it runs.
  const evaluating = known ?? evaluateRepo(path, { run });
  const { base, tip } = await baseOf(path, run);
  const [evaluation, asked] = await Promise.all([evaluating, tip === null ? askBase(path, base, run) : null]);
  const { state } = evaluation;
  if (base !== null && tip !== null && state.head === tip) {
    return { evaluation, repo: { ...snapshotOf(workspace, state, { ref: base, commit: tip }), changedFiles: [] } };
  }
  // HEAD was at the tip by its files but the status says otherwise (it moved meanwhile): ask git after all.
  const [merged, diff] = asked ?? (await askBase(path, base, run));
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

/**
 * The readiness report of the workspace now and, read with it, each repository as the checkpoint
 * records it and what carrying its work would take (from the same status read). `ready`: a report
 * of this workspace that found it ready, whose state of each repository stands for its status read.
 */
export async function checkpointRead(
  ref: WorkspaceRef,
  run: GitRunner,
  ready?: ReadinessReport,
): Promise<{ report: ReadinessReport; repos: CheckpointRepo[]; carries: RepoCarry[] }> {
  const paths = repoPathsOf(ref);
  if (paths.length === 0) return { report: await evaluateSourceReadiness([ref.workspace], { run }), repos: [], carries: [] };
  const known = (path: string) => {
    const state = ready?.ready ? ready.repos.find((r) => r.path === path) : undefined;
    return state ? { state, blockers: [] } : undefined;
  };
  const read = await Promise.all(paths.map((path) => readRepo(ref.workspace, path, run, known(path))));
  const report = reportOf(
    read.map((r) => r.evaluation),
    Date.now(),
  );
  return { report, repos: read.map((r) => r.repo), carries: read.flatMap((r) => (r.evaluation.carry ? [r.evaluation.carry] : [])) };
}
