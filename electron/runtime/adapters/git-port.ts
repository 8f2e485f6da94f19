/** The runtime's GitPort over the git modules: readiness, the clone finder and workspace pinning. */
import { dirname, isAbsolute, relative, sep } from 'node:path';
import type { GitRunner } from '../../git/git-runner.ts';
import { readCleanClone, type PinFailure } from '../../git/pin-checks.ts';
import { locate, pinWorkspace, type Located } from '../../git/pinning.ts';
import type { ParsedStatus } from '../../git/status-parser.ts';
import { prepareCheck } from '../../git/prepare-check.ts';
import type { ReadinessReport } from '../../../shared/readiness.ts';
import { buildCapsule } from '../../git/carry-capsule.ts';
import { parkCarried } from '../../git/carry-park.ts';
import type { CheckoutPlaces, GitPort, PinRequest } from '../../ports/git.ts';
import { checkpointRead } from './checkpoint-read.ts';
import { gitAvailable, remotesUnder, workspaceReadiness, workspaceRepos } from './workspace-repos.ts';

/** The folder a set of pinned repositories forms: the repo itself, or the parent they share. */
function workspaceOf(paths: string[]): string {
  if (paths.length === 1) return paths[0]!;
  const parents = new Set(paths.map((p) => dirname(p)));
  return parents.size === 1 ? [...parents][0]! : paths[0]!;
}

/** What the clone finder is given for `places`: the homes first, the root, the folders in use, and whether to match none. */
function cloneSearch(run: GitRunner, places: CheckoutPlaces) {
  return { run, workspaceRoot: places.workspaceRoot, knownRepos: places.homes, skip: places.inUse, fresh: places.fresh };
}

/** Whether `path` is a place the clone finder looks in for `places`: a home, or under the root, and not in use. */
function lookedIn(path: string, places: CheckoutPlaces): boolean {
  if (places.inUse.includes(path)) return false;
  const rel = relative(places.workspaceRoot, path);
  return places.homes.includes(path) || (rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** How long a clone's status read begun ahead (startCloneStatusReads), or where prepare found a clone, stands for the pin's own. */
const REUSE_READ_MS = 2000;

/**
 * A pin or prepare refusal as the port answers it: the sentence and its fix, and in `details` what a
 * blocker names (the checkout, its remote, the fix, the files it holds…).
 */
function refusal(failure: PinFailure): { ok: false; code: string; message: string; details: Record<string, unknown> } {
  const where = { ...(failure.path ? { path: failure.path } : {}), ...(failure.remote ? { remote: failure.remote } : {}) };
  return {
    ok: false,
    code: failure.code,
    message: `${failure.message} ${failure.fix}`,
    details: { ...failure.details, ...where, sentence: failure.message, fix: failure.fix },
  };
}

/** Git work of the runtime, every call through `run`. */
export function gitPort(run: GitRunner): GitPort {
  // What prepare fetched (clone path → branch tip), so the pin that follows does not look for it again.
  const fetched = new Map<string, string>();
  // Clean-status reads begun as the target claimed a session (clone path → when, and the read), for its pin.
  const startedStatusReads = new Map<string, { at: number; read: Promise<ParsedStatus | PinFailure | undefined> }>();
  // The last readiness read of each workspace that found it ready (workspace → report), for a checkpoint taken ahead.
  const readiness = new Map<string, ReadinessReport>();
  // The clone each remote was prepared in (remote → where, and when), so a claim and pin right after need not look for it.
  const preparedIn = new Map<string, { place: Located; at: number }>();
  /**
   * Where `repos` were prepared, when every one was under REUSE_READ_MS ago and is a place `places`
   * would look in; else undefined (look for them). A fork pinned while a move prepared the same
   * remote looks only under its own folder: it never takes the move's checkout.
   */
  const preparedPlaces = (repos: readonly { remoteUrl: string | null }[], places: CheckoutPlaces) => {
    const found = repos.map((r) => preparedIn.get(r.remoteUrl ?? ''));
    const fits = (f: { place: Located; at: number } | undefined) =>
      f !== undefined && Date.now() - f.at <= REUSE_READ_MS && lookedIn(f.place.path, places);
    return found.every(fits) ? found.map((f) => f!.place) : undefined;
  };
  // Once git has run here it is taken to stay (the heartbeat asks every few seconds, and each ask is
  // a process); while it has not, every ask looks again, so a git installed later is found.
  let found = false;
  /** Where each repository is here (a clone, or the folder it would be cloned to); read only. */
  const locateRepos = (repos: readonly { remoteUrl: string | null }[], places: CheckoutPlaces) =>
    locate(
      repos.map((r) => ({ remote: r.remoteUrl ?? '' })),
      cloneSearch(run, places),
    );
  return {
    available: async () => (found ||= await gitAvailable(run)),
    repos: (ref) => workspaceRepos(ref, run),
    checkpointRead: (ref) => checkpointRead(ref, run),
    checkpointReadOnRecentReadiness(ref) {
      const last = readiness.get(ref.workspace);
      return checkpointRead(ref, run, last && Date.now() - last.evaluatedAt <= REUSE_READ_MS ? last : undefined);
    },
    async sourceReadiness(ref) {
      const report = await workspaceReadiness(ref, run);
      if (report.ready) readiness.set(ref.workspace, report);
      else readiness.delete(ref.workspace);
      return report;
    },
    remotesUnder: (root) => remotesUnder(root, run),
    buildCapsule: (carry, scratch) => buildCapsule(run, carry, scratch),
    parkCarried: (path, request) => parkCarried(run, path, request),
    async prepare(repos, places, progress) {
      const prepared = await prepareCheck(
        repos.map((r) => ({ remote: r.remoteUrl ?? '', branch: r.branch ?? '', ...(r.commit ? { commit: r.commit } : {}) })),
        { ...cloneSearch(run, places), ...(progress ? { progress } : {}) },
      );
      if (!prepared.ok) return refusal(prepared);
      for (const repo of prepared.value.repos) {
        if (repo.path === null) continue;
        fetched.set(repo.path, repo.tip);
        preparedIn.set(repo.remote, { place: { kind: 'clone', path: repo.path, remoteName: repo.remoteName! }, at: Date.now() });
      }
      return { ok: true, value: { workspace: places.workspaceRoot } };
    },
    async locate(repos, places) {
      const located = await locateRepos(repos, places);
      return located.length > 0 ? workspaceOf(located.map((l) => l.path)) : null;
    },
    startCloneStatusReads(repos, places) {
      // Read now, whatever prepare read (the clone may have changed since); looked for only when not prepared moments ago.
      const at = Date.now();
      const prepared = places.fresh ? undefined : preparedPlaces(repos, places);
      void (prepared ? Promise.resolve(prepared) : locateRepos(repos, places)).then(
        (located) => {
          for (const [i, place] of located.entries())
            if (place.kind === 'clone')
              startedStatusReads.set(place.path, {
                at,
                read: readCleanClone(run, place.path, { remote: repos[i]!.remoteUrl ?? '', path: place.path }).catch(() => undefined),
              });
        },
        () => undefined,
      );
    },
    async pin(repos: PinRequest[], places, progress) {
      const taken = (path: string) => {
        const ahead = startedStatusReads.get(path);
        startedStatusReads.delete(path);
        // Only a read begun moments ago stands for the pin's own (a move that stalled reads again).
        return ahead && Date.now() - ahead.at <= REUSE_READ_MS ? ahead.read : undefined;
      };
      const pinned = await pinWorkspace(
        repos.map((r) => ({ remote: r.remoteUrl ?? '', branch: r.branch ?? '', commit: r.commit, ...(r.carry ? { carry: r.carry } : {}) })),
        {
          ...cloneSearch(run, places),
          fetched,
          startedStatusRead: taken,
          located: places.fresh ? undefined : preparedPlaces(repos, places),
          ...(progress ? { progress } : {}),
        },
      );
      if (!pinned.ok) return refusal(pinned);
      const repoPaths = pinned.value.repos.map((r) => r.path);
      // Where prepare fetched the pinned commit, the branch's remote-tracking ref is known to point there (the drift check's base).
      const checkedOut = pinned.value.repos.map((r) => ({
        path: r.path,
        branch: r.branch,
        head: r.commit,
        dirty: r.dirty,
        ...(fetched.get(r.path) === r.commit ? { remoteTip: { ref: r.tracking, commit: r.commit } } : {}),
      }));
      return { ok: true, value: { workspace: workspaceOf(repoPaths), repoPaths, checkedOut } };
    },
  };
}
