/**
 * A repository's status with its submodules' changes in it, read so that no git ever runs inside a
 * submodule with settings made for the repository around it. Left to itself, `git status` runs a
 * status inside each populated submodule, where the submodule's own config applies and the guard
 * (repo-config-guard.ts), which listed only the outer repository's config, cannot take back what
 * it names. So the guard keeps every status out of submodules (`--ignore-submodules=dirty`: a
 * submodule whose commit moved is still listed, read from its refs), and this reader looks inside
 * each populated submodule itself: one guarded status in the submodule's own folder (its own config
 * listed there by the guard), recursively. What a submodule holds uncommitted is reported under
 * the outer repository's paths (`vendor/lib/file.txt`), and the submodule is named in
 * `dirtySubmodules`.
 *
 * The submodules are the gitlinks (mode 160000) of the index, listed or not in `.gitmodules`, as git
 * itself goes by. The index is read first: one without a gitlink's mode word anywhere holds none,
 * and a repository without submodules costs no more than its own status. Otherwise `git ls-files
 * --stage` lists them. A gitlink folder is entered only when it is a real folder (not a link) whose
 * `.git` names a git dir, as git decides a submodule is populated.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathKind, readSmallText } from '../io/small-reads.ts';
import { resolveGitDirs } from './git-dir.ts';
import type { GitResult, GitRunner } from './git-runner.ts';
import { parseStatus, STATUS_ARGS, type ParsedStatus } from './status-parser.ts';

export interface StatusReadOptions {
  /** Flags after STATUS_ARGS (e.g. `--untracked-files=all`), used in every submodule too. */
  args?: readonly string[];
}

/** Background reads must not take the index lock the user's own git commands need. */
export const READ_ONLY_ENV = { GIT_OPTIONAL_LOCKS: '0' } as const;

/** The status, or the failed git call and the folder it ran in (the repository or one of its submodules). */
export type StatusRead = { ok: true; status: ParsedStatus } | { ok: false; result: GitResult; where: string };

/** How deep submodules are followed (a deeper one makes the read fail), and how many statuses of one level run at a time. */
const MAX_DEPTH = 8;
const AT_ONCE = 4;

/** `ctime mtime dev ino` come before an entry's mode, which for a gitlink is 0o160000, big-endian. */
const GITLINK_MODE = [0x00, 0x00, 0xe0, 0x00] as const;

/**
 * False only when the index in `gitDir` certainly holds no gitlink: it is absent, or its one file
 * (no split index) has no gitlink mode word anywhere. True means "ask git".
 */
async function mayHoldGitlinks(gitDir: string): Promise<boolean> {
  let index: Buffer;
  try {
    index = await readFile(join(gitDir, 'index'));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  if (index.subarray(0, 4).toString('latin1') !== 'DIRC') return true;
  try {
    if (readdirSync(gitDir).some((name) => name.startsWith('sharedindex.'))) return true;
  } catch {
    return true;
  }
  // 0xe0 is rare outside object ids, so each hit is checked where it stands.
  for (let at = index.indexOf(GITLINK_MODE[2], 2); at >= 0 && at + 1 < index.length; at = index.indexOf(GITLINK_MODE[2], at + 1)) {
    if (index[at - 2] === GITLINK_MODE[0] && index[at - 1] === GITLINK_MODE[1] && index[at + 1] === GITLINK_MODE[3]) return true;
  }
  return false;
}

/** Whether the gitlink folder `dir` is a populated submodule: a real folder whose `.git` is a git dir or points at one. */
function populated(dir: string): boolean {
  try {
    if (!lstatSync(dir).isDirectory()) return false;
  } catch {
    return false;
  }
  const dotGit = join(dir, '.git');
  const kind = pathKind(dotGit);
  if (kind === 'directory') return true;
  const pointer = kind === 'file' ? /^gitdir:\s*(.+)$/m.exec(readSmallText(dotGit) ?? '')?.[1] : undefined;
  return pointer !== undefined && pathKind(resolve(dir, pointer.trim())) === 'directory';
}

/** The populated submodules of the repository at `repo`, as paths relative to it; or the failed listing. */
async function populatedSubmodules(run: GitRunner, repo: string): Promise<string[] | GitResult> {
  const dirs = await resolveGitDirs(repo, run);
  if (dirs !== null && !(await mayHoldGitlinks(dirs.gitDir))) return [];
  const listed = await run(['ls-files', '--stage', '-z'], { cwd: repo, env: READ_ONLY_ENV });
  if (listed.code !== 0) return listed;
  const paths = new Set<string>();
  for (const entry of listed.stdout.split('\0')) {
    if (!entry.startsWith('160000 ')) continue;
    const path = entry.slice(entry.indexOf('\t') + 1);
    // git keeps no such path in an index; one here is not followed.
    if (path.length > 0 && !path.startsWith('/') && !path.split('/').includes('..')) paths.add(path);
  }
  return [...paths].filter((path) => populated(join(repo, path)));
}

/** Adds what a submodule at `path` holds uncommitted to `into`, under the outer repository's paths. */
function mergeSubmodule(into: ParsedStatus, path: string, inner: ParsedStatus): void {
  const under = (paths: string[]) => paths.map((p) => `${path}/${p}`);
  into.changed.push(...under(inner.changed));
  into.untracked.push(...under(inner.untracked));
  into.conflicted.push(...under(inner.conflicted));
  into.added += inner.added;
  into.deleted += inner.deleted;
  into.gitlinks.push(...under(inner.gitlinks));
  const dirty = inner.changed.length + inner.untracked.length + inner.conflicted.length > 0;
  into.dirtySubmodules.push(...(dirty ? [path] : []), ...under(inner.dirtySubmodules));
}

async function readAt(run: GitRunner, repo: string, options: StatusReadOptions, depth: number): Promise<StatusRead> {
  const [statusResult, submodules] = await Promise.all([
    run([...STATUS_ARGS, ...(options.args ?? [])], { cwd: repo, env: READ_ONLY_ENV }),
    populatedSubmodules(run, repo),
  ]);
  if (statusResult.code !== 0) return { ok: false, result: statusResult, where: repo };
  if (!Array.isArray(submodules)) return { ok: false, result: submodules, where: repo };
  // Deeper than that is not read, so it is not said to be clean either.
  if (depth >= MAX_DEPTH && submodules.length > 0) {
    const stderr = `submodules are nested more than ${MAX_DEPTH} deep here, which Baton does not read`;
    return { ok: false, result: { code: -1, stdout: '', stderr }, where: repo };
  }
  const status = parseStatus(statusResult.stdout);
  for (let i = 0; i < submodules.length; i += AT_ONCE) {
    const batch = submodules.slice(i, i + AT_ONCE);
    const inner = await Promise.all(batch.map((path) => readAt(run, join(repo, path), options, depth + 1)));
    for (const [j, read] of inner.entries()) {
      if (!read.ok) return read;
      mergeSubmodule(status, batch[j]!, read.status);
    }
  }
  return { ok: true, status };
}

/**
 * Reads `git status --porcelain=v2 --branch -z` (and `options.args`) of `repo` through the guarded
 * `run`, without the index lock (READ_ONLY_ENV), with what each populated submodule, recursively,
 * holds uncommitted added under its path; a failure names the folder whose read failed.
 */
export function readStatus(run: GitRunner, repo: string, options: StatusReadOptions = {}): Promise<StatusRead> {
  return readAt(run, repo, options, 0);
}
