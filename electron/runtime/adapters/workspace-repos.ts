/**
 * The runtime's view of a workspace's repositories: which repos a workspace holds (the folder
 * itself, or its direct child repos), their branch, head, remote and merge base, and the remotes
 * a device can open under its workspace root. Git runs through the argument-array runner (git/git-runner.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ReadinessReport, RepoState } from '../../../shared/readiness.ts';
import { redactCredentials } from '../../../shared/url-credentials.ts';
import { listClones } from '../../git/clone-finder.ts';
import { readSymbolicRef, resolveGitDirs } from '../../git/git-dir.ts';
import type { GitRunner } from '../../git/git-runner.ts';
import { evaluateRepo, evaluateSourceReadiness } from '../../git/readiness.ts';
import type { RepoSnapshot, WorkspaceRef } from '../../ports/git.ts';

/** The repository folders of a workspace: itself when it is a repo, else its direct child repos. */
export function workspaceRepoPaths(workspace: string): string[] {
  if (!existsSync(workspace)) return [];
  if (existsSync(join(workspace, '.git'))) return [workspace];
  try {
    return readdirSync(workspace, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && existsSync(join(workspace, entry.name, '.git')))
      .map((entry) => join(workspace, entry.name))
      .sort();
  } catch {
    return [];
  }
}

/** The remote's default branch as `origin/<name>`: where origin/HEAD points (read from its file), else null. */
export async function defaultBaseRef(repo: string, run: GitRunner): Promise<string | null> {
  const dirs = await resolveGitDirs(repo, run);
  const target = dirs === null ? null : readSymbolicRef(dirs.commonDir, 'refs/remotes/origin/HEAD');
  return target?.replace(/^refs\/remotes\//, '') ?? null;
}

/**
 * The merge base of `head` with the remote's default branch, and the ref it was taken with: origin/HEAD's
 * target, else origin/main, else origin/master. Null when there is none.
 */
export async function mergeBase(repo: string, head: string, run: GitRunner): Promise<{ ref: string; commit: string } | null> {
  const bases = [(await defaultBaseRef(repo, run)) ?? 'origin/HEAD', 'origin/main', 'origin/master'];
  for (const ref of new Set(bases)) {
    const result = await run(['merge-base', head, ref], { cwd: repo });
    if (result.code === 0 && result.stdout.trim() !== '') return { ref, commit: result.stdout.trim() };
  }
  return null;
}

/** The repositories of a session workspace: the recorded ones, else those found in its folder. */
export function repoPathsOf(ref: WorkspaceRef): string[] {
  return ref.repoPaths.length > 0 ? ref.repoPaths : workspaceRepoPaths(ref.workspace);
}

/** Each repository of the workspace as git reads it now. */
export async function workspaceRepos(ref: WorkspaceRef, run: GitRunner): Promise<RepoSnapshot[]> {
  return Promise.all(
    repoPathsOf(ref).map(async (path) => {
      const { state } = await evaluateRepo(path, { run });
      const base = state.head === null ? null : await mergeBase(path, state.head, run);
      return snapshotOf(ref.workspace, state, base);
    }),
  );
}

/** A repository's snapshot from its state as readiness read it and its merge base. */
export function snapshotOf(workspace: string, state: RepoState, base: { ref: string; commit: string } | null): RepoSnapshot {
  return {
    path: state.path,
    relPath: relative(workspace, state.path) || '.',
    remoteUrl: state.remoteUrl,
    branch: state.branch,
    head: state.head,
    mergeBase: base?.commit ?? null,
    baseRef: base?.ref ?? null,
  };
}

/** The source half of the readiness report for a workspace (every repo checked). */
export async function workspaceReadiness(ref: WorkspaceRef, run: GitRunner): Promise<ReadinessReport> {
  const paths = repoPathsOf(ref);
  if (paths.length === 0) return evaluateSourceReadiness([ref.workspace], { run });
  return evaluateSourceReadiness(paths, { run });
}

/** Remote URLs of the clones under `root` (git/clone-finder.ts: two levels deep), credentials redacted. */
export async function remotesUnder(root: string, run: GitRunner): Promise<string[]> {
  if (!existsSync(root)) return [];
  const clones = await listClones({ run, workspaceRoot: root });
  return [...new Set(clones.flatMap((clone) => [...clone.remotes.values()].map(redactCredentials)))].sort();
}

/** Whether git runs here. */
export async function gitAvailable(run: GitRunner): Promise<boolean> {
  const result = await run(['--version'], { cwd: process.cwd() });
  return result.code === 0;
}
