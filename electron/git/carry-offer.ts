/**
 * What Carry my changes would take of one repository, from the status readiness read of it — no
 * other scan of the working tree: the paths of its working state (changed and new files), their
 * counts and sizes (one lstat each), the names that look like secrets, and the commit on the remote
 * its unpushed commits are bundled against (the upstream's tip, read from the ref files). None when
 * there is nothing to carry, or when the repository cannot be carried as it is — an operation in
 * progress, conflicts, changes inside a submodule or to one, an embedded repository, a branch with
 * no upstream or one that has new commits: those blockers keep their own fix.
 */
import { lstat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { CarryCounts, CarryOffer } from '../../shared/carry.ts';
import { readRef } from './git-dir.ts';
import type { GitRunner } from './git-runner.ts';
import { looksSecret } from './secret-paths.ts';
import type { RepoFacts } from './source-blockers.ts';
import { READ_ONLY_ENV } from './submodule-status.ts';

/** One repository's carried work as readiness found it (its paths are relative to `repo`). */
export interface RepoCarry {
  repo: string;
  /** The commit on the remote the unpushed commits are bundled against: the upstream's tip (HEAD when none are unpushed). */
  base: string;
  head: string;
  counts: CarryCounts;
  /** The paths whose working state is hashed into the carried tree: changed, deleted and new files. */
  paths: string[];
  /** Of `paths`, those that look like secrets. */
  secretFiles: string[];
  /** The working files' sizes and the unpushed commits' objects, before compression. */
  bytes: number;
  largest: { path: string; bytes: number }[];
}

/** How many of the largest files an offer names. */
const LARGEST = 5;
/** lstat calls in flight at once. */
const AT_ONCE = 64;

/** Whether the repository's blockers are all of a kind carrying resolves (see the file header). */
function carryable(facts: RepoFacts): boolean {
  const { status, operation, pushRemote } = facts;
  if (operation !== null || status.conflicted.length > 0 || status.dirtySubmodules.length > 0 || status.gitlinks.length > 0) return false;
  if (status.untracked.some((path) => path.endsWith('/'))) return false;
  if (status.branch === null || status.head === null || pushRemote === null) return false;
  return status.upstream !== null && status.upstreamExists && status.behind === 0;
}

/** The upstream's tip: from the ref files, else asked of git. */
async function upstreamTip(run: GitRunner, repo: string, commonDir: string, upstream: string): Promise<string | null> {
  const read = readRef(commonDir, `refs/remotes/${upstream}`);
  if (read !== null) return read;
  const asked = await run(['rev-parse', '-q', '--verify', `${upstream}^{commit}`], { cwd: repo, env: READ_ONLY_ENV });
  return asked.code === 0 ? asked.stdout.trim() : null;
}

/** The sizes of `paths` in `repo` (-1 for one that is gone), AT_ONCE at a time. */
async function sizesOf(repo: string, paths: readonly string[]): Promise<number[]> {
  const sizes: number[] = [];
  for (let i = 0; i < paths.length; i += AT_ONCE) {
    const batch = paths.slice(i, i + AT_ONCE);
    sizes.push(
      ...(await Promise.all(
        batch.map((path) =>
          lstat(join(repo, path)).then(
            (s) => s.size,
            () => -1,
          ),
        ),
      )),
    );
  }
  return sizes;
}

/** The bytes of the objects of the commits `base..head` as stored (0 when git cannot say). */
async function commitBytes(run: GitRunner, repo: string, base: string, head: string): Promise<number> {
  if (base === head) return 0;
  const used = await run(['rev-list', '--objects', '--disk-usage', head, `^${base}`], { cwd: repo, env: READ_ONLY_ENV });
  const bytes = Number(used.stdout.trim());
  return used.code === 0 && Number.isSafeInteger(bytes) ? bytes : 0;
}

/** What carrying would take of the repository readiness read as `facts`; null when nothing, or when it cannot be carried as it is. */
export async function readRepoCarry(run: GitRunner, facts: RepoFacts, commonDir: string): Promise<RepoCarry | null> {
  const { status, repo } = facts;
  const paths = [...status.changed, ...status.untracked];
  if ((paths.length === 0 && status.ahead === 0) || !carryable(facts)) return null;
  const base = status.ahead === 0 ? status.head : await upstreamTip(run, repo, commonDir, status.upstream!);
  if (base === null || status.head === null) return null;
  const [sizes, commits] = await Promise.all([sizesOf(repo, paths), commitBytes(run, repo, base, status.head)]);
  const largest = paths
    .map((path, i) => ({ path, bytes: Math.max(0, sizes[i]!) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, LARGEST);
  const added = status.added + status.untracked.length;
  return {
    repo,
    base,
    head: status.head,
    counts: { changed: status.changed.length - status.added - status.deleted, added, deleted: status.deleted, commits: status.ahead },
    paths,
    // A deleted file carries no secret.
    secretFiles: paths.filter((path, i) => sizes[i]! >= 0 && looksSecret(path)),
    bytes: sizes.reduce((sum, size) => sum + Math.max(0, size), commits),
    largest,
  };
}

/** A carried path as the person reads it: under its repository's folder name (`app/.env`). */
export function carriedName(repo: string, path: string): string {
  return `${basename(repo)}/${path}`;
}

/** The workspace's offer: the repositories' carried work added up, names under each repository's folder. */
export function carryOfferOf(carries: readonly RepoCarry[]): CarryOffer {
  const sum = (key: keyof CarryCounts) => carries.reduce((total, c) => total + c.counts[key], 0);
  return {
    changed: sum('changed'),
    added: sum('added'),
    deleted: sum('deleted'),
    commits: sum('commits'),
    secretFiles: carries.flatMap((c) => c.secretFiles.map((path) => carriedName(c.repo, path))),
    estimatedBytes: carries.reduce((total, c) => total + c.bytes, 0),
    largest: carries
      .flatMap((c) => c.largest.map((l) => ({ path: carriedName(c.repo, l.path), bytes: l.bytes })))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, LARGEST),
    repos: carries.map((c) => c.repo),
  };
}
