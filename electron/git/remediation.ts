/**
 * Remediation the user asks for explicitly (never run automatically): push the branch (setting
 * the upstream when missing) and commit every change with the message the user typed. Each
 * returns the action's result and a fresh readiness evaluation. The acts themselves (`add`,
 * `commit`, `push`) run through `asUser`, as the user's own git would: hooks, filters, signing.
 * What is read before and after them goes through the guarded `run`.
 */
import type { Result } from '../../shared/errors.ts';
import { fail, ok } from '../../shared/errors.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import { operationInProgress, readRemoteConfig, remoteForBranch, resolveGitDirs } from './git-dir.ts';
import { checkDirectory, gitFailureText, type GitRunner } from './git-runner.ts';
import { evaluateSourceReadiness, type ReadinessDeps } from './readiness.ts';
import { parseStatus, STATUS_ARGS, type ParsedStatus } from './status-parser.ts';

export type RemediationFailureCode =
  | 'not_a_repository'
  | 'detached_head'
  | 'no_remote'
  | 'push_failed'
  | 'empty_message'
  | 'operation_in_progress'
  | 'nothing_to_commit'
  | 'commit_failed';

export interface RemediationDeps extends ReadinessDeps {
  /** The runner of the acts the user asked for: not guarded (git-runner.ts `asUser`). */
  asUser: GitRunner;
}

export interface RemediationOutcome<T> {
  result: Result<T, RemediationFailureCode>;
  /** Readiness evaluated again after the action (of `workspaceRepos`, or of the repo alone). */
  report: ReadinessReport;
}

export interface PushDone {
  remote: string;
  branch: string;
  setUpstream: boolean;
}
export interface CommitDone {
  commit: string;
  fileCount: number;
}

interface RepoRead {
  status: ParsedStatus;
  gitDir: string;
  commonDir: string;
}

async function readRepo(repo: string, run: GitRunner): Promise<Result<RepoRead, 'not_a_repository'>> {
  const check = checkDirectory(repo);
  if (!check.ok) return fail('not_a_repository', check.message);
  const [status, dirs] = await Promise.all([run(STATUS_ARGS, { cwd: repo }), resolveGitDirs(repo, run)]);
  if (status.code !== 0 || dirs === null) return fail('not_a_repository', `${repo} is not a git repository: ${gitFailureText(status)}`);
  return ok({ status: parseStatus(status.stdout), ...dirs });
}

async function withReport<T>(
  result: Result<T, RemediationFailureCode>,
  repos: string[],
  deps: ReadinessDeps,
): Promise<RemediationOutcome<T>> {
  return { result, report: await evaluateSourceReadiness(repos, deps) };
}

async function push(repo: string, { run, asUser }: RemediationDeps): Promise<Result<PushDone, RemediationFailureCode>> {
  const read = await readRepo(repo, run);
  if (!read.ok) return read;
  const { status, commonDir } = read.value;
  if (status.branch === null) return fail('detached_head', 'HEAD is detached; switch to a branch before pushing.');
  const remote = remoteForBranch(readRemoteConfig(commonDir), status.branch);
  if (remote === null) return fail('no_remote', `The repository has no remote to push ${status.branch} to.`);
  const setUpstream = status.upstream === null || !status.upstreamExists;
  const prefix = `${remote}/`;
  const target = !setUpstream && status.upstream?.startsWith(prefix) ? status.upstream.slice(prefix.length) : status.branch;
  const args = setUpstream ? ['push', '-u', remote, status.branch] : ['push', remote, `HEAD:refs/heads/${target}`];
  const pushed = await asUser(args, { cwd: repo });
  if (pushed.code !== 0) return fail('push_failed', gitFailureText(pushed), { stderr: pushed.stderr.slice(0, 2000) });
  return ok({ remote, branch: status.branch, setUpstream });
}

/** Pushes the current branch of `repo` (`git push -u <remote> <branch>` when it has no upstream), then re-evaluates. */
export async function pushRepo(
  repo: string,
  deps: RemediationDeps,
  workspaceRepos: string[] = [repo],
): Promise<RemediationOutcome<PushDone>> {
  return withReport(await push(repo, deps), workspaceRepos, deps);
}

async function commit(
  repo: string,
  message: string,
  { run, asUser }: RemediationDeps,
): Promise<Result<CommitDone, RemediationFailureCode>> {
  if (message.trim().length === 0) return fail('empty_message', 'Type a commit message first.');
  const read = await readRepo(repo, run);
  if (!read.ok) return read;
  const { status, gitDir } = read.value;
  const operation = operationInProgress(gitDir);
  if (operation !== null || status.conflicted.length > 0) {
    return fail('operation_in_progress', `Finish or abort the ${operation ?? 'merge'} and resolve conflicts before committing.`);
  }
  const fileCount = status.changed.length + status.untracked.length;
  if (fileCount === 0) return fail('nothing_to_commit', 'There are no changes to commit.');
  const added = await asUser(['add', '-A'], { cwd: repo });
  if (added.code !== 0) return fail('commit_failed', gitFailureText(added));
  const committed = await asUser(['commit', '-q', '-m', message], { cwd: repo });
  if (committed.code !== 0) return fail('commit_failed', gitFailureText(committed), { stderr: committed.stderr.slice(0, 2000) });
  const head = await run(['rev-parse', 'HEAD'], { cwd: repo });
  return ok({ commit: head.stdout.trim(), fileCount });
}

/** Stages every change (`git add -A`) and commits it with the user's message (refusing an empty one), then re-evaluates. */
export async function commitAll(
  repo: string,
  message: string,
  deps: RemediationDeps,
  workspaceRepos: string[] = [repo],
): Promise<RemediationOutcome<CommitDone>> {
  return withReport(await commit(repo, message, deps), workspaceRepos, deps);
}
