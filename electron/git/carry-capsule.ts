/**
 * The source's capsule of one repository's carried work (Carry my changes): its unpushed commits and
 * its working state, as one git bundle against the commit on the remote, and the two trees the target
 * must rebuild — the index's (staged stays staged) and the whole working state's (index, worktree,
 * new files, deletions, modes, symlinks) — recorded by hash.
 *
 * Nothing of the repository is written: the index is copied into the capsule's scratch folder and
 * the working state hashed into that copy (`GIT_INDEX_FILE`), only for the paths readiness's status
 * listed (carry-offer.ts: no second scan of the tree); every object made goes into the scratch
 * folder's own object store (`GIT_OBJECT_DIRECTORY`, the repository's read through
 * `GIT_ALTERNATE_OBJECT_DIRECTORIES`); and the refs the bundle needs are those of a scratch git dir.
 * The two commits holding the trees have a fixed author and time, so the same work makes the same
 * capsule. The bundle travels inside the sealed checkpoint; the scratch folder is the caller's.
 */
import { copyFile, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { RepoCarry } from './carry-offer.ts';
import { resolveGitDirs } from './git-dir.ts';
import { gitFailureText, type GitRunner } from './git-runner.ts';

/** A repository's carried work, ready to travel: the bundle and what the target verifies. */
export interface Capsule {
  /** The commit on the remote the bundle is made against (the target fetches it). */
  base: string;
  /** The source's HEAD: base and the bundle's commits. */
  head: string;
  /** The tree of the source's index. */
  indexTree: string;
  /** The tree of its whole working state: tracked files as they are on disk, and the new files `.gitignore` does not exclude. */
  workTree: string;
  bundle: { path: string; size: number };
  /** The files uncommitted in it (a deletion or rename as each path it touches), sorted: what a status would list. */
  uncommitted: string[];
}

/** The refs the bundle carries: HEAD's commits, and the commit of the working state (whose parent holds the index). */
export const CAPSULE_REFS = { head: 'refs/baton/head', work: 'refs/baton/work' } as const;

/** Who made the capsule's two commits, and when: fixed, so the same work gives the same bundle. */
export const CAPSULE_IDENTITY = {
  GIT_AUTHOR_NAME: 'Baton',
  GIT_AUTHOR_EMAIL: 'baton@localhost',
  GIT_AUTHOR_DATE: '@0 +0000',
  GIT_COMMITTER_NAME: 'Baton',
  GIT_COMMITTER_EMAIL: 'baton@localhost',
  GIT_COMMITTER_DATE: '@0 +0000',
} as const;

/** Paths per update-index call (its arguments stay far below the system's limit). */
const PATHS_PER_CALL = 1000;

/**
 * Makes a scratch git dir at `dir` whose objects are its own and, through its alternates, the
 * repository's (`objects`): objects written with its store go there, never into the repository.
 */
export async function scratchGitDir(dir: string, objects: string): Promise<string> {
  await mkdir(join(dir, 'objects', 'info'), { recursive: true, mode: 0o700 });
  await mkdir(join(dir, 'refs'), { recursive: true });
  await writeFile(join(dir, 'HEAD'), 'ref: refs/heads/carried\n');
  await writeFile(join(dir, 'objects', 'info', 'alternates'), `${objects}\n`);
  return join(dir, 'objects');
}

/** Copies the index of `gitDir` (and a split index's shared part) to `to`; nothing when it has none. */
export async function copyIndex(gitDir: string, to: string): Promise<void> {
  await copyFile(join(gitDir, 'index'), to).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  for (const name of await readdir(gitDir)) if (name.startsWith('sharedindex.')) await copyFile(join(gitDir, name), join(to, '..', name));
}

/**
 * Hashes `paths` of the working tree of `repo` into the index `env` names, as they are on disk: a
 * changed file's new content and mode, a new one added, a deleted one removed (no ignore rules
 * asked: every path is one status listed). Null when it worked, else why not.
 */
export async function hashPaths(run: GitRunner, repo: string, paths: readonly string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  for (let i = 0; i < paths.length; i += PATHS_PER_CALL) {
    const args = ['update-index', '-q', '--add', '--remove', '--replace', '--', ...paths.slice(i, i + PATHS_PER_CALL)];
    const hashed = await run(args, { cwd: repo, env });
    if (hashed.code !== 0) return gitFailureText(hashed);
  }
  return null;
}

/** `git write-tree` of the index `env` names: the tree's id, or why not. */
export async function writeTree(run: GitRunner, repo: string, env: NodeJS.ProcessEnv): Promise<Result<string>> {
  const written = await run(['write-tree'], { cwd: repo, env });
  return written.code === 0 ? ok(written.stdout.trim()) : fail('carry_failed', gitFailureText(written));
}

/**
 * Builds the capsule of the work `carry` readiness found, in `scratch` (made here, removed by the
 * caller): see the file header. A failure says which step and why.
 */
export async function buildCapsule(run: GitRunner, carry: RepoCarry, scratch: string): Promise<Result<Capsule>> {
  const { repo, base, head } = carry;
  const dirs = await resolveGitDirs(repo, run);
  if (dirs === null) return fail('carry_failed', `${repo} has no git folder.`);
  const gitDir = join(scratch, 'git');
  const objects = await scratchGitDir(gitDir, join(dirs.commonDir, 'objects'));
  const index = join(scratch, 'index');
  await copyIndex(dirs.gitDir, index);
  const env = { GIT_INDEX_FILE: index, GIT_OBJECT_DIRECTORY: objects, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(dirs.commonDir, 'objects') };
  const indexTree = await writeTree(run, repo, env);
  if (!indexTree.ok) return indexTree;
  const hashed = await hashPaths(run, repo, carry.paths, env);
  if (hashed !== null) return fail('carry_failed', `Reading the changed files of ${repo} failed: ${hashed}`);
  const workTree = await writeTree(run, repo, env);
  if (!workTree.ok) return workTree;
  const commit = async (tree: string, parent: string, message: string) => {
    const made = await run(['commit-tree', tree, '-p', parent, '-m', message], { cwd: repo, env: { ...env, ...CAPSULE_IDENTITY } });
    return made.code === 0 ? ok(made.stdout.trim()) : fail('carry_failed', gitFailureText(made));
  };
  const staged = await commit(indexTree.value, head, 'baton: carried index');
  if (!staged.ok) return staged;
  const work = await commit(workTree.value, staged.value, 'baton: carried working state');
  if (!work.ok) return work;
  const inScratch = { GIT_DIR: gitDir };
  for (const [ref, id] of [
    [CAPSULE_REFS.head, head],
    [CAPSULE_REFS.work, work.value],
  ] as const) {
    const set = await run(['update-ref', ref, id], { cwd: scratch, env: inScratch });
    if (set.code !== 0) return fail('carry_failed', gitFailureText(set));
  }
  const path = join(scratch, 'carried.bundle');
  const bundled = await run(['bundle', 'create', '-q', path, CAPSULE_REFS.head, CAPSULE_REFS.work, `^${base}`], {
    cwd: scratch,
    env: inScratch,
  });
  if (bundled.code !== 0) return fail('carry_failed', `Bundling the carried commits of ${repo} failed: ${gitFailureText(bundled)}`);
  const size = (await stat(path)).size;
  const uncommitted = await treesDiffer(run, repo, [head, indexTree.value, workTree.value], env);
  if (!Array.isArray(uncommitted)) return fail('carry_failed', uncommitted);
  return ok({ base, head, indexTree: indexTree.value, workTree: workTree.value, bundle: { path, size }, uncommitted });
}

/**
 * The paths that differ from each of `trees` to the next (`diff-tree`, no renames: a rename is its two
 * paths), sorted; or why git could not say. Reads trees only, never the working tree.
 */
export async function treesDiffer(
  run: GitRunner,
  repo: string,
  trees: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<string[] | string> {
  const paths = new Set<string>();
  for (let i = 0; i + 1 < trees.length; i++) {
    const listed = await run(['diff-tree', '-r', '-z', '--name-only', '--no-renames', trees[i]!, trees[i + 1]!, '--'], {
      cwd: repo,
      ...(env ? { env } : {}),
    });
    if (listed.code !== 0) return gitFailureText(listed);
    for (const file of listed.stdout.split('\0')) if (file !== '') paths.add(file);
  }
  return [...paths].sort();
}
