/**
 * Workspace pinning on the target: every repository at exactly its pinned commit on its branch,
 * never clobbering the device's own work. All repositories are checked (found or cloned, clean,
 * fetched, not diverged) before any working tree is changed; HEAD is verified afterwards.
 */
import { mkdirSync } from 'node:fs';
import type { Failure, Success } from '../../shared/errors.ts';
import { redactCredentials, withoutRedactedCredentials } from '../../shared/url-credentials.ts';
import { type CloneSearch, cloneDestination, listClones, matchClone } from './clone-finder.ts';
import { operationInProgress, resolveGitDirs } from './git-dir.ts';
import { gitFailureText, type GitRunner } from './git-runner.ts';
import type { ParsedStatus } from './status-parser.ts';
import { readStatus } from './submodule-status.ts';
import { runTransfer, transferFailureText, type GitTransferListener } from './transfer-progress.ts';
import { counted } from '../../shared/plural.ts';

export interface PinTarget {
  remote: string;
  branch: string;
  /** Full commit id. */
  commit: string;
}

export type PinFailureCode =
  'invalid_pin' | 'target_workspace_dirty' | 'target_branch_diverged' | 'commit_missing' | 'pin_failed' | 'target_cannot_open_workspace';

/** A refusal with the repository it is about and the exact fix. */
export interface PinFailure extends Failure<PinFailureCode> {
  remote?: string;
  path?: string;
  fix: string;
}

export interface PinnedRepoResult extends PinTarget {
  path: string;
  cloned: boolean;
  /** The remote-tracking ref of the branch (`origin/main`). */
  tracking: string;
  /** What the verifying status read after checkout showed uncommitted (empty on a clean pin), sorted. */
  dirty: string[];
}

export type PinOutcome = Success<{ repos: PinnedRepoResult[] }> | PinFailure;

export interface PinDeps extends CloneSearch {
  /** Told how far each fetch or clone got (git's own progress). */
  progress?: GitTransferListener;
  /** Branch tips this device fetched into its clones (clone path → commit), e.g. by the prepare step: known to be there. */
  fetched?: ReadonlyMap<string, string>;
  /** A clone's clean-status read begun just before the pin was asked for (GitPort.startCloneStatusReads), taken once; undefined: read again. */
  startedStatusRead?: (path: string) => Promise<ParsedStatus | PinFailure | undefined> | undefined;
  /** Where each pin is, as the caller found it moments ago (the prepare step); undefined: looked for. */
  located?: readonly Located[];
}

/** Where a repository is: an existing clone (and its remote's name), or the folder to clone it to. */
export type Located = { kind: 'clone'; path: string; remoteName: string } | { kind: 'clone-to'; path: string };

/** Matches each pin to a clone (none when `fresh`), or reserves a distinct clone folder for it under the workspace root. */
export async function locate(pins: { remote: string }[], deps: PinDeps): Promise<Located[]> {
  mkdirSync(deps.workspaceRoot, { recursive: true });
  const clones = deps.fresh ? [] : await listClones(deps);
  const taken = new Set<string>();
  const located: Located[] = [];
  for (const pin of pins) {
    const match = matchClone(clones, pin.remote);
    located.push(
      match ? { kind: 'clone', ...match } : { kind: 'clone-to', path: await cloneDestination(deps.workspaceRoot, pin.remote, taken) },
    );
  }
  return located;
}

/** One repository checked before anything is changed (checkRepo): found or cloned, clean, the commit fetched, not diverged. */
interface CheckedRepo extends PinTarget {
  path: string;
  remoteName: string;
  cloned: boolean;
  /** The local branch's commit, null when the branch does not exist locally. */
  localTip: string | null;
  onBranch: boolean;
  /** Whether the branch already tracks `<remoteName>/<branch>`. */
  upstreamSet: boolean;
  /** Whether the clean status read found HEAD on the branch at the commit already. */
  alreadyThere: boolean;
}

const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A conservative branch-name check (what `git check-ref-format --branch` accepts, minus rarities). */
const BRANCH_NAME = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock(?:\/|$))[A-Za-z0-9._/+-]+(?<![./])$/;

export function refuse(
  code: PinFailureCode,
  message: string,
  fix: string,
  where: { remote?: string; path?: string; details?: Record<string, unknown> } = {},
): PinFailure {
  // Every refusal can name a remote URL: none leaves here with credentials in it.
  const remote = where.remote === undefined ? {} : { remote: redactCredentials(where.remote) };
  return { ok: false, code, message: redactCredentials(message), fix: redactCredentials(fix), ...where, ...remote };
}

/** Checks a pin's shape (the commit only when given); null when it is well-formed. */
export function invalidPin(pin: { remote: string; branch: string; commit?: string }): PinFailure | null {
  if (pin.commit !== undefined && !COMMIT_ID.test(pin.commit)) {
    return refuse(
      'invalid_pin',
      `The pinned commit ${JSON.stringify(pin.commit)} is not a full commit id.`,
      'Pin a full 40-hex commit id.',
    );
  }
  if (typeof pin.branch !== 'string' || !BRANCH_NAME.test(pin.branch))
    return refuse('invalid_pin', `The branch name ${JSON.stringify(pin.branch)} is not valid.`, 'Pin a valid branch name.');
  if (typeof pin.remote !== 'string' || pin.remote.trim().length === 0 || pin.remote.includes('\0') || pin.remote.startsWith('-')) {
    return refuse('invalid_pin', 'The pinned remote URL is not valid.', 'Pin the repository by its remote URL.');
  }
  return null;
}

export async function revParse(run: GitRunner, path: string, rev: string): Promise<string | null> {
  const result = await run(['rev-parse', '-q', '--verify', rev], { cwd: path });
  return result.code === 0 ? result.stdout.trim() : null;
}

/**
 * Fetches `branch` into its remote-tracking ref, reporting git's progress to `progress`; null when
 * it worked, else why not. With `commit`, that commit alone, into the remote-tracking ref only when
 * that moves it forward: no refs are listed first (a round trip less), no tags follow, and nothing
 * crosses the network when the commit is here already. (An unpack limit of 1 makes git index the
 * pack it receives, which is what reports the bytes received. No automatic maintenance runs after
 * it: a move does not wait for the repository's housekeeping, which the user's own git commands
 * still trigger.)
 */
export async function fetchBranch(
  run: GitRunner,
  path: string,
  remoteName: string,
  branch: string,
  progress?: GitTransferListener,
  commit?: string,
): Promise<string | null> {
  const tracking = `refs/remotes/${remoteName}/${branch}`;
  const [refspec, tags] = commit ? [`${commit}:${tracking}`, ['--no-tags']] : [`+refs/heads/${branch}:${tracking}`, []];
  const args = progress
    ? ['-c', 'fetch.unpackLimit=1', 'fetch', '--progress', '--no-auto-gc', ...tags, remoteName, refspec]
    : ['fetch', '-q', '--no-auto-gc', ...tags, remoteName, refspec];
  const fetched = await runTransfer(run, args, { cwd: path, step: 'fetch', repoPath: path }, progress);
  return fetched.code === 0 ? null : transferFailureText(fetched);
}

/** Reads a clone's status; refuses it as `target_workspace_dirty` (touching nothing) when it has any change or an operation in progress. */
export async function readCleanClone(
  run: GitRunner,
  path: string,
  at: { remote: string; path: string },
): Promise<ParsedStatus | PinFailure> {
  const status = await readStatus(run, path);
  if (!status.ok)
    return refuse('pin_failed', `Reading ${status.where} failed: ${gitFailureText(status.result)}`, `git -C ${status.where} status`, at);
  const parsed = status.status;
  const files = [...parsed.conflicted, ...parsed.changed, ...parsed.untracked];
  const dirs = await resolveGitDirs(path, run);
  const operation = dirs ? operationInProgress(dirs.gitDir) : null;
  if (operation !== null) {
    return refuse(
      'target_workspace_dirty',
      `A ${operation} is in progress in the clone at ${path} on this device; nothing was touched.`,
      `Finish it (git -C ${path} ${operation} --continue) or abort it (git -C ${path} ${operation} --abort), then retry.`,
      { ...at, details: { operation, files: files.slice(0, 20), fileCount: files.length } },
    );
  }
  if (files.length === 0) return parsed;
  return refuse(
    'target_workspace_dirty',
    `The clone at ${path} on this device has ${counted(files.length, 'uncommitted change')}; nothing was touched.`,
    `Commit or stash them in ${path} (git -C ${path} stash -u), then retry.`,
    { ...at, details: { files: files.slice(0, 20), fileCount: files.length } },
  );
}

/**
 * Refuses (`target_branch_diverged`) when the local branch `tip` holds commits that are neither in
 * `pinned` (when given) nor on the remote: moving the branch would lose them. Null when it holds none.
 */
export async function refuseLocalCommits(
  run: GitRunner,
  b: { path: string; remoteName: string; branch: string; tip: string; pinned: string | null },
  at: { remote: string; path: string },
): Promise<PinFailure | null> {
  const args = ['rev-list', '--count', b.tip, ...(b.pinned ? [`^${b.pinned}`] : []), '--not', `--remotes=${b.remoteName}`];
  const extra = await run(args, { cwd: b.path });
  const count = Number(extra.stdout.trim());
  if (extra.code === 0 && count === 0) return null;
  const target = b.pinned ? b.pinned.slice(0, 7) : `${b.remoteName}/${b.branch}`;
  return refuse(
    'target_branch_diverged',
    `${b.branch} in ${b.path} holds ${count ? counted(count, 'local commit') : 'some local commits'} that ${b.pinned ? 'the pinned commit does not contain' : 'are not on the remote'}.`,
    `Keep them on another branch (git -C ${b.path} branch keep/${b.branch} ${b.branch}), then move ${b.branch} to ${target} (git -C ${b.path} reset --keep ${target}) and retry.`,
    { ...at, details: { localCommits: count } },
  );
}

/** Finds or clones one repository, refuses a dirty or diverged clone, and fetches the pinned commit. */
async function checkRepo(pin: PinTarget, found: Located, deps: PinDeps): Promise<CheckedRepo | PinFailure> {
  const { run } = deps;
  const where = { remote: pin.remote };
  if (found.kind === 'clone-to') {
    const dest = found.path;
    const url = withoutRedactedCredentials(pin.remote);
    const quiet = deps.progress ? '--progress' : '-q';
    const cloned = await runTransfer(
      run,
      ['clone', quiet, '--no-checkout', '--origin', 'origin', '--', url, dest],
      { cwd: deps.workspaceRoot, step: 'clone', repoPath: dest },
      deps.progress,
    );
    if (cloned.code !== 0)
      return refuse('pin_failed', `Cloning the repository failed: ${transferFailureText(cloned)}`, `git clone ${pin.remote}`, where);
    if ((await revParse(run, dest, `${pin.commit}^{commit}`)) === null) {
      return refuse(
        'commit_missing',
        `The pinned commit ${pin.commit.slice(0, 7)} is not on the remote.`,
        `Push ${pin.branch} from the source device, then retry.`,
        { ...where, path: dest },
      );
    }
    return {
      ...pin,
      path: dest,
      remoteName: 'origin',
      cloned: true,
      localTip: null,
      onBranch: false,
      upstreamSet: false,
      alreadyThere: false,
    };
  }
  const { path, remoteName } = found;
  const at = { ...where, path };
  // The target's prepare step fetched the branch already: fetch again only when the commit is not here.
  const fetched = deps.fetched?.get(path) === pin.commit;
  const [parsed, present] = await Promise.all([
    (deps.startedStatusRead?.(path) ?? Promise.resolve(undefined)).then((ahead) => ahead ?? readCleanClone(run, path, at)),
    fetched ? pin.commit : revParse(run, path, `${pin.commit}^{commit}`),
  ]);
  if ('ok' in parsed) return parsed;
  if (present === null) {
    const fetchError = await fetchBranch(run, path, remoteName, pin.branch, deps.progress);
    if ((await revParse(run, path, `${pin.commit}^{commit}`)) === null) {
      return refuse(
        'commit_missing',
        `The pinned commit ${pin.commit.slice(0, 7)} is not on the remote${fetchError ? ` (${fetchError})` : ''}.`,
        `Push ${pin.branch} from the source device, then retry.`,
        at,
      );
    }
  }
  const onBranch = parsed.branch === pin.branch;
  // On the branch, the status read already said where it points.
  const localTip = onBranch ? parsed.head : await revParse(run, path, `refs/heads/${pin.branch}`);
  if (localTip !== null && localTip !== pin.commit) {
    const diverged = await refuseLocalCommits(run, { path, remoteName, branch: pin.branch, tip: localTip, pinned: pin.commit }, at);
    if (diverged) return diverged;
  }
  return {
    ...pin,
    path,
    remoteName,
    cloned: false,
    localTip,
    onBranch,
    upstreamSet: onBranch && parsed.upstream === `${remoteName}/${pin.branch}`,
    alreadyThere: onBranch && parsed.head === pin.commit,
  };
}

/** The status read that verifies a pin: every untracked file listed, renames as a delete and an add. */
const VERIFY_ARGS = ['--untracked-files=all', '--no-renames'];

/** Moves the checked repository's working tree to its pinned branch at the commit, then verifies HEAD. */
async function checkOutPin(p: CheckedRepo, run: GitRunner): Promise<PinnedRepoResult | PinFailure> {
  const at = { remote: p.remote, path: p.path };
  const tracking = `${p.remoteName}/${p.branch}`;
  const steps: string[][] = [];
  if (p.cloned || p.localTip === null) steps.push(['checkout', '-q', '--no-track', '-B', p.branch, p.commit]);
  // On the branch: a fast-forward, or a move back over commits that are all on the remote (checked in checkRepo);
  // nothing to do when it is there already.
  else if (p.onBranch) {
    if (p.localTip !== p.commit) steps.push(['reset', '-q', '--keep', p.commit]);
  } else steps.push(['update-ref', `refs/heads/${p.branch}`, p.commit, p.localTip], ['checkout', '-q', p.branch]);
  for (const args of steps) {
    const result = await run(args, { cwd: p.path });
    if (result.code !== 0)
      return refuse(
        'pin_failed',
        `Checking out ${p.branch} at ${p.commit.slice(0, 7)} failed: ${gitFailureText(result)}`,
        `git -C ${p.path} checkout ${p.branch}`,
        at,
      );
  }
  if (!p.upstreamSet && (await revParse(run, p.path, `refs/remotes/${p.remoteName}/${p.branch}`)) !== null) {
    await run(['branch', '-q', `--set-upstream-to=${p.remoteName}/${p.branch}`, p.branch], { cwd: p.path });
  }
  // Nothing moved: the clean status read checkRepo made is the verification (HEAD on the branch at the commit).
  if (steps.length === 0 && p.alreadyThere)
    return { remote: p.remote, branch: p.branch, commit: p.commit, path: p.path, cloned: false, tracking, dirty: [] };
  // One status read verifies HEAD and its branch, and tells the drift check what is uncommitted.
  const verify = await readStatus(run, p.path, { args: VERIFY_ARGS });
  const after = verify.ok ? verify.status : null;
  if (after === null || after.head !== p.commit || after.branch !== p.branch) {
    return refuse(
      'pin_failed',
      `After checkout ${p.path} is at ${after?.head?.slice(0, 7) || 'nothing'}, not ${p.commit.slice(0, 7)} on ${p.branch}.`,
      `git -C ${p.path} checkout ${p.branch}`,
      at,
    );
  }
  const dirty = [...after.conflicted, ...after.changed, ...after.untracked].sort();
  return { remote: p.remote, branch: p.branch, commit: p.commit, path: p.path, cloned: p.cloned, tracking, dirty };
}

function isFailure<T extends object>(value: T | PinFailure): value is PinFailure {
  return 'ok' in value && value.ok === false;
}

/**
 * Pins every repository at exactly its commit on its branch: finds the clone by remote (or clones
 * it under the workspace root), fetches, and fast-forwards or creates the branch. Refuses a dirty
 * clone (`target_workspace_dirty`), a branch with local commits outside the pin
 * (`target_branch_diverged`) and a commit the remote lacks (`commit_missing`) before touching any tree.
 */
export async function pinWorkspace(pins: PinTarget[], deps: PinDeps): Promise<PinOutcome> {
  for (const pin of pins) {
    const bad = invalidPin(pin);
    if (bad) return bad;
  }
  const located = deps.located ?? (await locate(pins, deps));
  const checked = await Promise.all(pins.map((pin, i) => checkRepo(pin, located[i] as Located, deps)));
  const refused = checked.find(isFailure);
  if (refused) return refused;
  const applied = await Promise.all((checked as CheckedRepo[]).map((p) => checkOutPin(p, deps.run)));
  const failed = applied.find(isFailure);
  if (failed) return failed;
  return { ok: true, value: { repos: applied as PinnedRepoResult[] } };
}
