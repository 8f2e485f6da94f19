/**
 * The target-prepared step: for each repository, can this device open it (a clean local clone,
 * found by remote) or clone it (the remote answers), and does the branch exist there? Fetches into
 * existing clones (reporting git's progress) the commit the source said it is at — nothing when it
 * is here — or, when it did not say, the branch; never touches a working tree and never clones.
 */
import type { Success } from '../../shared/errors.ts';
import { withoutRedactedCredentials } from '../../shared/url-credentials.ts';
import { readRef, resolveGitDirs } from './git-dir.ts';
import { gitFailureText } from './git-runner.ts';
import { fetchBranch, invalidPin, readCleanClone, refuse, refuseLocalCommits, revParse, type PinFailure } from './pin-checks.ts';
import { locate, type Located, type PinDeps } from './pinning.ts';

export interface PrepareTarget {
  remote: string;
  branch: string;
  /** The commit the source is at (its readiness read it as it asked), when it said. */
  commit?: string;
}

export interface PreparedRepo extends PrepareTarget {
  /** The existing clone, or null when activation will clone under the workspace root. */
  path: string | null;
  /** The clone's name for the remote (null with no clone). */
  remoteName: string | null;
  /** The branch's commit on the remote. */
  tip: string;
}

export type PrepareOutcome = Success<{ repos: PreparedRepo[] }> | PinFailure;

/** The commit a remote-tracking ref names: read from the git dir where it is a file, else asked of git. */
async function remoteTip(run: PinDeps['run'], path: string, ref: string): Promise<string | null> {
  const dirs = await resolveGitDirs(path, run);
  return (dirs === null ? null : readRef(dirs.commonDir, ref)) ?? (await revParse(run, path, ref));
}

/**
 * Fetches what the move needs into the clone at `path`: the commit the source named, alone (no
 * refs listed first, nothing fetched when it is here), else — or when the remote does not serve a
 * commit by its id — the branch. `error` says why the fetch failed; `missing`, that the named commit is not here after it.
 */
async function fetchForMove(
  run: PinDeps['run'],
  path: string,
  remoteName: string,
  repo: PrepareTarget,
  progress: PinDeps['progress'],
): Promise<{ error: string | null; missing: boolean }> {
  const present = async () => (await revParse(run, path, `${repo.commit}^{commit}`)) !== null;
  if (repo.commit) {
    const byId = await fetchBranch(run, path, remoteName, repo.branch, progress, repo.commit);
    // Refused as no forward move of the remote-tracking ref, the commit may be here all the same.
    if (byId === null || (await present())) return { error: null, missing: false };
  }
  const error = await fetchBranch(run, path, remoteName, repo.branch, progress);
  return { error, missing: repo.commit !== undefined && error === null && !(await present()) };
}

async function prepareOne(repo: PrepareTarget, found: Located, deps: PinDeps): Promise<PreparedRepo | PinFailure> {
  const { run } = deps;
  const cannotOpen = (why: string, path?: string): PinFailure =>
    refuse(
      'target_cannot_open_workspace',
      `This device cannot get ${repo.branch} of ${repo.remote}: ${why}`,
      `Check that this device can reach ${repo.remote} (credentials, network) and that ${repo.branch} is pushed.`,
      path ? { remote: repo.remote, path } : { remote: repo.remote },
    );
  if (found.kind === 'clone-to') {
    const url = withoutRedactedCredentials(repo.remote);
    const listed = await run(['ls-remote', '--heads', '--', url, `refs/heads/${repo.branch}`], { cwd: deps.workspaceRoot });
    if (listed.code !== 0) return cannotOpen(gitFailureText(listed));
    const tip = listed.stdout.split(/\s/)[0] ?? '';
    if (tip.length === 0) return cannotOpen('the branch is not on the remote.');
    return { ...repo, path: null, remoteName: null, tip };
  }
  const at = { remote: repo.remote, path: found.path };
  // Fetching only moves remote-tracking refs, so it runs alongside the status read; it is the longer
  // of the two, so it is started first (starting a process holds this thread for a moment).
  const [fetched, clean] = await Promise.all([
    fetchForMove(run, found.path, found.remoteName, repo, deps.progress),
    readCleanClone(run, found.path, at),
  ]);
  if ('ok' in clean) return clean;
  if (fetched.error) return cannotOpen(fetched.error, found.path);
  if (fetched.missing) return cannotOpen(`the commit ${repo.commit!.slice(0, 7)} the source is at is not on the remote.`, found.path);
  const tip = await remoteTip(run, found.path, `refs/remotes/${found.remoteName}/${repo.branch}`);
  if (tip === null) return cannotOpen('the branch is not on the remote.', found.path);
  // On the branch, the status read already said where it points; at the commit the move needs (or the
  // remote's tip) it holds nothing that commit and the remote lack.
  const needed = repo.commit ?? tip;
  const localTip = clean.branch === repo.branch ? clean.head : await revParse(run, found.path, `refs/heads/${repo.branch}`);
  if (localTip !== null && localTip !== needed) {
    const diverged = await refuseLocalCommits(
      run,
      { path: found.path, remoteName: found.remoteName, branch: repo.branch, tip: localTip, pinned: repo.commit ?? null },
      at,
    );
    if (diverged) return diverged;
  }
  return { ...repo, path: found.path, remoteName: found.remoteName, tip };
}

/**
 * Checks that every repository can be opened or cloned and its branch fetched, reporting a dirty
 * clone or a branch with unpushed local commits early; changes no working tree.
 */
export async function prepareCheck(repos: PrepareTarget[], deps: PinDeps): Promise<PrepareOutcome> {
  for (const repo of repos) {
    const bad = invalidPin(repo);
    if (bad) return bad;
  }
  const located = await locate(repos, deps);
  const results = await Promise.all(repos.map((repo, i) => prepareOne(repo, located[i] as Located, deps)));
  const failed = results.find((r): r is PinFailure => 'ok' in r);
  if (failed) return failed;
  return { ok: true, value: { repos: results as PreparedRepo[] } };
}
