/**
 * Workspace pinning on the target: every repository at exactly its pinned commit on its branch,
 * never clobbering the device's own work. All repositories are checked (found or cloned, clean,
 * fetched, not diverged) before any working tree is changed; HEAD is verified afterwards. A pin that
 * carries work (pin-carry.ts) fetches the commit it was carried against, imports the capsule, then
 * restores and proves the working state over the checked-out HEAD; when any repository fails after
 * that, every carried one is put back as it was.
 */
import { mkdirSync } from 'node:fs';
import type { Success } from '../../shared/errors.ts';
import { withoutRedactedCredentials } from '../../shared/url-credentials.ts';
import { type CloneSearch, cloneDestination, listClones, matchClone } from './clone-finder.ts';
import { gitFailureText, type GitRunner } from './git-runner.ts';
import type { CapsuleToApply, CheckoutBefore } from './carry-apply.ts';
import { alreadyCarried, applyCarried, importCarried } from './pin-carry.ts';
import { fetchBranch, invalidPin, readCleanClone, refuse, refuseLocalCommits, revParse, type PinFailure } from './pin-checks.ts';
import type { ParsedStatus } from './status-parser.ts';
import { readStatus } from './submodule-status.ts';
import { runTransfer, transferFailureText, type GitTransferListener } from './transfer-progress.ts';

export interface PinTarget {
  remote: string;
  branch: string;
  /** Full commit id. */
  commit: string;
  /** The work carried with it, whose HEAD is `commit` (absent: none). */
  carry?: CapsuleToApply;
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
  /** Where the checkout was (a carried pin puts it back there when the carry fails). */
  before: CheckoutBefore;
  /** A carried pin whose checkout holds exactly the carried state already: what it leaves uncommitted (absent: not so). */
  carriedDirt?: string[];
}

/** A new clone, or a clone that holds no branch of the pin yet: it was nowhere before. */
const nowhere = (branch: string): CheckoutBefore => ({ branch: null, head: null, pinnedBranch: branch, pinnedBranchTip: null });

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
    const imported = pin.carry ? await importCarried(run, dest, pin.remote, pin.carry) : null;
    if (imported) return imported;
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
      before: nowhere(pin.branch),
    };
  }
  const { path, remoteName } = found;
  const at = { ...where, path };
  // The target's prepare step fetched the branch already: fetch again only when the commit is not here.
  // Carried work needs the commit it was carried against; the capsule brings the rest.
  const needed = pin.carry?.base ?? pin.commit;
  const fetched = deps.fetched?.get(path) === needed;
  const [parsed, present] = await Promise.all([
    (deps.startedStatusRead?.(path) ?? Promise.resolve(undefined)).then((ahead) => ahead ?? readCleanClone(run, path, at)),
    fetched ? needed : revParse(run, path, `${needed}^{commit}`),
  ]);
  if ('ok' in parsed) {
    // An activation retried after it restored the carried work finds exactly that: taken as it is.
    const dirt = pin.carry && parsed.code === 'target_workspace_dirty' ? await alreadyCarried(run, path, pin.branch, pin.carry) : null;
    if (dirt === null) return parsed;
    const before = { branch: pin.branch, head: pin.commit, pinnedBranch: pin.branch, pinnedBranchTip: pin.commit };
    return {
      ...pin,
      path,
      remoteName,
      cloned: false,
      localTip: pin.commit,
      onBranch: true,
      upstreamSet: true,
      alreadyThere: true,
      before,
      carriedDirt: dirt,
    };
  }
  if (present === null) {
    const fetchError = await fetchBranch(run, path, remoteName, pin.branch, deps.progress);
    if ((await revParse(run, path, `${needed}^{commit}`)) === null) {
      return refuse(
        'commit_missing',
        `The pinned commit ${needed.slice(0, 7)} is not on the remote${fetchError ? ` (${fetchError})` : ''}.`,
        `Push ${pin.branch} from the source device, then retry.`,
        at,
      );
    }
  }
  const imported = pin.carry ? await importCarried(run, path, pin.remote, pin.carry) : null;
  if (imported) return imported;
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
    before: { branch: parsed.branch, head: parsed.head, pinnedBranch: pin.branch, pinnedBranchTip: localTip },
  };
}

/** The status read that verifies a pin: every untracked file listed, renames as a delete and an add. */
const VERIFY_ARGS = ['--untracked-files=all', '--no-renames'];

/** A repository pinned, and how to put back the work it carried (absent: it carried none, or had it already). */
type CheckedOut = { ok: true; repo: PinnedRepoResult; undo?: () => Promise<string | null> } | PinFailure;

/**
 * Moves the checked repository's working tree to its pinned branch at the commit, then verifies HEAD;
 * with carried work, restores and proves it (pin-carry.ts).
 */
async function checkOutPin(p: CheckedRepo, run: GitRunner): Promise<CheckedOut> {
  const pinned = await checkOutCommit(p, run);
  if (isFailure(pinned) || !p.carry) return isFailure(pinned) ? pinned : { ok: true, repo: pinned };
  if (p.carriedDirt) return { ok: true, repo: { ...pinned, dirty: p.carriedDirt } };
  const carried = await applyCarried(run, { path: p.path, remote: p.remote, cloned: p.cloned }, p.carry, p.before);
  return carried.ok ? { ok: true, repo: { ...pinned, dirty: carried.dirty }, undo: carried.undo } : carried;
}

/** Moves the checked repository's working tree to its pinned branch at the commit, then verifies HEAD. */
async function checkOutCommit(p: CheckedRepo, run: GitRunner): Promise<PinnedRepoResult | PinFailure> {
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
  if (failed) {
    // Carried work goes back with the move that failed: no checkout keeps a copy the session does not run on.
    for (const done of applied) if (done.ok) await done.undo?.();
    return failed;
  }
  return { ok: true, value: { repos: applied.map((done) => (done as Extract<CheckedOut, { ok: true }>).repo) } };
}
