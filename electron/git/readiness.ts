/**
 * Source-side readiness: per repository one `git status --porcelain=v2 --branch --untracked-files=all`
 * (and one in each populated submodule, submodule-status.ts) plus file reads of the git dir
 * (operation in progress, remote URL). Repositories are evaluated concurrently.
 */
import { basename, relative } from 'node:path';
import type { Blocker, ReadinessReport, RepoState } from '../../shared/readiness.ts';
import { carryOfferOf, readRepoCarry, type RepoCarry } from './carry-offer.ts';
import { redactCredentials, redactUrl } from '../../shared/url-credentials.ts';
import { operationInProgress, readRemoteConfig, remoteForBranch, resolveGitDirs, type RemoteConfig } from './git-dir.ts';
import { checkDirectory, gitFailureText, type GitRunner } from './git-runner.ts';
import { sourceBlockers } from './source-blockers.ts';
import { READ_ONLY_ENV, readStatus, type StatusRead } from './submodule-status.ts';

export interface ReadinessDeps {
  run: GitRunner;
  /** The clock (ms since epoch); defaults to Date.now. */
  now?: () => number;
  /** How many dirty paths a blocker lists; defaults to 20. */
  maxListedFiles?: number;
}

export interface RepoEvaluation {
  state: RepoState;
  blockers: Blocker[];
  /** What Carry my changes would take of it, read from the same status (carry-offer.ts); absent: nothing, or it cannot be carried as it is. */
  carry?: RepoCarry;
}

/** The blockers carrying resolves: the work readiness found, marked so the UI offers Carry my changes beside their fixes. */
const CARRIED_CODES = new Set(['dirty_tree', 'unpushed_commits']);

function unreadable(repo: string, reason: string): RepoEvaluation {
  return {
    state: { path: repo, branch: null, upstream: null, head: null, ahead: 0, behind: 0, remoteUrl: null },
    blockers: [
      {
        code: 'not_a_repository',
        repo,
        message: `${basename(repo) || repo} cannot be read as a git repository: ${reason}`,
        fix: `git clone <url> ${repo}`,
        details: { reason },
      },
    ],
  };
}

/** The push remote's URL, its credentials redacted: reports, records and checkpoints never hold them. */
async function remoteUrl(repo: string, run: GitRunner, config: RemoteConfig, remote: string | null): Promise<string | null> {
  if (remote === null) return null;
  const url = config.remotes.get(remote);
  if (url !== undefined && !config.hasIncludes) return redactCredentials(url);
  // Only when the config includes other files: ask git, which follows them.
  const result = await run(['config', '--get', `remote.${remote}.url`], { cwd: repo, env: READ_ONLY_ENV });
  return redactUrl(result.code === 0 ? result.stdout.trim() : (url ?? null));
}

/** Why a status read failed, naming the submodule it failed in when it was not the repository itself. */
function statusReadFailure(repo: string, failed: Extract<StatusRead, { ok: false }>): string {
  const where = failed.where === repo ? '' : `in its submodule ${relative(repo, failed.where)}: `;
  return where + gitFailureText(failed.result);
}

/** Reads one repository's state and its blockers; a missing or non-git path yields `not_a_repository`. */
export async function evaluateRepo(repo: string, deps: ReadinessDeps): Promise<RepoEvaluation> {
  const pathCheck = checkDirectory(repo);
  if (!pathCheck.ok) return unreadable(repo, pathCheck.message);
  // The git dir's files (an operation in progress, the remotes) are read while the status runs.
  // Every new file, not its new folder: the person is shown the files they would commit.
  const statusRun = readStatus(deps.run, repo, { args: ['--untracked-files=all'] });
  const dirsRead = resolveGitDirs(repo, deps.run).then((dirs) =>
    dirs === null ? null : ([operationInProgress(dirs.gitDir), readRemoteConfig(dirs.commonDir), dirs.commonDir] as const),
  );
  const [statusRead, read] = await Promise.all([statusRun, dirsRead]);
  if (!statusRead.ok) return unreadable(repo, statusReadFailure(repo, statusRead));
  if (read === null) return unreadable(repo, 'its git folder cannot be found');
  const { status } = statusRead;
  const [operation, config, commonDir] = read;
  const pushRemote = remoteForBranch(config, status.branch);
  const state: RepoState = {
    path: repo,
    branch: status.branch,
    upstream: status.upstream,
    head: status.head,
    ahead: status.ahead,
    behind: status.behind,
    remoteUrl: await remoteUrl(repo, deps.run, config, pushRemote),
  };
  const facts = { repo, status, operation, pushRemote, ...(deps.maxListedFiles ? { maxListedFiles: deps.maxListedFiles } : {}) };
  const blockers = sourceBlockers(facts);
  if (!blockers.some((b) => CARRIED_CODES.has(b.code))) return { state, blockers };
  const carry = await readRepoCarry(deps.run, facts, commonDir);
  if (carry === null) return { state, blockers };
  return {
    state: { ...state, carryBase: carry.base },
    blockers: blockers.map((b) => (CARRIED_CODES.has(b.code) ? { ...b, carryable: true } : b)),
    carry,
  };
}

/** Evaluates every repository of a workspace concurrently; ready only when no repository has a blocker. */
export async function evaluateSourceReadiness(repos: string[], deps: ReadinessDeps): Promise<ReadinessReport> {
  const evaluations = await Promise.all(repos.map((repo) => evaluateRepo(repo, deps)));
  return reportOf(evaluations, (deps.now ?? Date.now)());
}

/** The workspace's report from its repositories' evaluations, with what carrying would take when some work can be carried. */
export function reportOf(evaluations: readonly RepoEvaluation[], evaluatedAt: number): ReadinessReport {
  const blockers = evaluations.flatMap((e) => e.blockers);
  const carries = evaluations.flatMap((e) => (e.carry ? [e.carry] : []));
  return {
    ready: blockers.length === 0,
    blockers,
    repos: evaluations.map((e) => e.state),
    evaluatedAt,
    ...(carries.length > 0 ? { carry: carryOfferOf(carries) } : {}),
  };
}
