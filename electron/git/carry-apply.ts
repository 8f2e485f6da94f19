/**
 * The target's side of carried work (carry-capsule.ts makes it on the source): the capsule's objects
 * imported, the working state restored over the checkout the pin left clean at the source's exact
 * HEAD, and then proved: HEAD is that commit, the index's tree is the source's index tree (staged
 * stays staged) and the working state hashed from disk is the source's working tree — by hash,
 * before any provider call. A difference undoes it all: the checkout is put back as it was before
 * the move (files, index, HEAD and branch).
 *
 * Verifying reads the working tree once (a status against a copy of the index) and hashes only the
 * paths the two trees differ in; its objects go into a scratch store, never into the repository.
 */
import { rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CAPSULE_REFS, copyIndex, hashPaths, scratchGitDir, writeTree } from './carry-capsule.ts';
import { resolveGitDirs } from './git-dir.ts';
import { gitFailureText, type GitRunner } from './git-runner.ts';
import { parseStatus, STATUS_ARGS } from './status-parser.ts';

/** A capsule as the target applies it: its bundle staged on this device, and what it must rebuild. */
export interface CapsuleToApply {
  base: string;
  head: string;
  indexTree: string;
  workTree: string;
  /** The bundle file in the checkpoint's staging folder. */
  bundlePath: string;
}

/** Where a checkout was before the pin moved it: HEAD's branch (null: detached) and commit, and the pinned branch's tip (null: it did not exist). */
export interface CheckoutBefore {
  branch: string | null;
  head: string | null;
  pinnedBranch: string;
  pinnedBranchTip: string | null;
}

/** The paths two trees differ in (`filter`: only those, e.g. `A` for the ones the second adds). */
async function pathsBetween(run: GitRunner, repo: string, from: string, to: string, filter?: string): Promise<string[] | string> {
  const args = ['diff-tree', '-r', '-z', '--name-only', '--no-renames', ...(filter ? [`--diff-filter=${filter}`] : []), from, to, '--'];
  const listed = await run(args, { cwd: repo });
  return listed.code === 0 ? listed.stdout.split('\0').filter((path) => path !== '') : gitFailureText(listed);
}

/**
 * Imports the capsule's objects into `repo`, whose base commit must be here already: null when done
 * and every id the capsule names is here, else why not (nothing in the checkout is touched).
 */
export async function importCapsule(run: GitRunner, repo: string, capsule: CapsuleToApply): Promise<string | null> {
  const verified = await run(['bundle', 'verify', '-q', capsule.bundlePath], { cwd: repo });
  if (verified.code !== 0) return `the carried commits do not apply here: ${gitFailureText(verified)}`;
  const unbundled = await run(['bundle', 'unbundle', capsule.bundlePath], { cwd: repo });
  if (unbundled.code !== 0) return `the carried commits could not be read: ${gitFailureText(unbundled)}`;
  if (!unbundled.stdout.includes(CAPSULE_REFS.work)) return 'the carried bundle holds no working state';
  for (const [id, kind] of [
    [capsule.head, 'commit'],
    [capsule.indexTree, 'tree'],
    [capsule.workTree, 'tree'],
  ] as const) {
    const there = await run(['rev-parse', '-q', '--verify', `${id}^{${kind}}`], { cwd: repo });
    if (there.code !== 0 || there.stdout.trim() !== id) return `the carried ${kind} ${id.slice(0, 12)} is not in what arrived`;
  }
  return null;
}

/** Restores the working state over `repo`, clean at the capsule's HEAD: the working tree, then the index. Null when done, else why not. */
export async function restoreWorkingState(run: GitRunner, repo: string, capsule: CapsuleToApply): Promise<string | null> {
  for (const args of [
    ['read-tree', '-m', '-u', 'HEAD', capsule.workTree],
    ['read-tree', '-m', capsule.indexTree],
  ]) {
    const done = await run(args, { cwd: repo });
    if (done.code !== 0) return `restoring the carried changes failed: ${gitFailureText(done)}`;
  }
  return null;
}

/**
 * Whether `repo` now holds exactly the capsule's state (see the file header), checked in `scratch`
 * (made here; the caller removes it): null when it does, else what differs.
 */
export async function verifyWorkingState(run: GitRunner, repo: string, capsule: CapsuleToApply, scratch: string): Promise<string | null> {
  const dirs = await resolveGitDirs(repo, run);
  if (dirs === null) return 'its git folder cannot be found';
  const head = await run(['rev-parse', '-q', '--verify', 'HEAD'], { cwd: repo });
  if (head.stdout.trim() !== capsule.head)
    return `HEAD is ${head.stdout.trim().slice(0, 12) || 'nothing'}, not ${capsule.head.slice(0, 12)}`;
  const objects = await scratchGitDir(join(scratch, 'git'), join(dirs.commonDir, 'objects'));
  const index = join(scratch, 'index');
  await copyIndex(dirs.gitDir, index);
  const env = { GIT_INDEX_FILE: index, GIT_OBJECT_DIRECTORY: objects, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(dirs.commonDir, 'objects') };
  const staged = await writeTree(run, repo, env);
  if (!staged.ok || staged.value !== capsule.indexTree)
    return `the index is not the one carried (${staged.ok ? staged.value.slice(0, 12) : staged.message})`;
  const differing = await pathsBetween(run, repo, capsule.indexTree, capsule.workTree);
  if (typeof differing === 'string') return differing;
  const hashed = await hashPaths(run, repo, differing, env);
  if (hashed !== null) return hashed;
  const work = await writeTree(run, repo, env);
  if (!work.ok || work.value !== capsule.workTree)
    return `the working tree is not the one carried (${work.ok ? work.value.slice(0, 12) : work.message})`;
  // Every other path: nothing on disk differs from that copy of the index, and nothing is new.
  const status = await run([...STATUS_ARGS, '--untracked-files=all', '--no-renames'], {
    cwd: repo,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0' },
  });
  if (status.code !== 0) return gitFailureText(status);
  const parsed = parseStatus(status.stdout);
  const entries = status.stdout.split('\0').filter((entry) => /^[12] .[^.]/.test(entry));
  const extra = [...entries.map((entry) => entry.slice(entry.lastIndexOf(' ') + 1)), ...parsed.untracked];
  return extra.length === 0 ? null : `${extra.length} file(s) differ from what was carried: ${extra.slice(0, 5).join(', ')}`;
}

/**
 * Puts `repo` back as it was before the pin (`before`), from wherever the carry got to: tracked
 * files and the index at the old HEAD, the files the carry added removed, HEAD and the pinned branch
 * where they were. The checkout was clean then, so nothing of the device's own is lost. Null when
 * done, else what could not be undone.
 */
export async function undoCarry(run: GitRunner, repo: string, capsule: CapsuleToApply, before: CheckoutBefore): Promise<string | null> {
  if (before.head === null) return 'the checkout had no commit before the move';
  const reset = await run(['read-tree', '--reset', '-u', before.head], { cwd: repo });
  if (reset.code !== 0) return `resetting the files failed: ${gitFailureText(reset)}`;
  const added = await pathsBetween(run, repo, before.head, capsule.workTree, 'A');
  if (typeof added === 'string') return added;
  for (const path of added) {
    await rm(join(repo, path), { force: true });
    // Folders the carry made, now empty, go too (a folder with anything in it stays).
    for (let dir = dirname(path); dir !== '.'; dir = dirname(dir))
      if (
        !(await rmdir(join(repo, dir)).then(
          () => true,
          () => false,
        ))
      )
        break;
  }
  const { branch, pinnedBranch, pinnedBranchTip } = before;
  const refs: string[][] = [];
  if (branch !== pinnedBranch) {
    refs.push(branch === null ? ['update-ref', '--no-deref', 'HEAD', before.head] : ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
    refs.push(
      pinnedBranchTip === null
        ? ['update-ref', '-d', `refs/heads/${pinnedBranch}`]
        : ['update-ref', `refs/heads/${pinnedBranch}`, pinnedBranchTip],
    );
  } else refs.push(['update-ref', `refs/heads/${pinnedBranch}`, before.head]);
  for (const args of refs) {
    const done = await run(args, { cwd: repo });
    if (done.code !== 0) return `putting ${args.at(-2) ?? 'HEAD'} back failed: ${gitFailureText(done)}`;
  }
  return null;
}
