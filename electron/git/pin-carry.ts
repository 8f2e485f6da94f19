/**
 * A pin that carries work (pinning.ts with a capsule, carry-apply.ts): the capsule's objects
 * imported once its base is here, and — after the checkout is at the source's exact HEAD — the
 * working state restored and proved by hash, or everything the pin did to the checkout undone. A
 * checkout found holding exactly the carried state already (an activation retried after it got that
 * far) is taken as it is.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  importCapsule,
  restoreWorkingState,
  undoCarry,
  verifyWorkingState,
  type CapsuleToApply,
  type CheckoutBefore,
} from './carry-apply.ts';
import { treesDiffer } from './carry-capsule.ts';
import type { GitRunner } from './git-runner.ts';
import { refuse, revParse, type PinFailure } from './pin-checks.ts';

/** The refusal of carried work that did not import or rebuild here, with what was done about the checkout. */
function mismatch(path: string, remote: string, why: string, undone: string | null): PinFailure {
  const after = undone === null ? 'the checkout was put back as it was before the move' : `putting the checkout back failed too: ${undone}`;
  return refuse(
    'carry_mismatch',
    `The carried changes did not rebuild exactly in ${path} (${why}); ${after}. Nothing was resumed.`,
    'Move the session again from the device that has the changes, or commit and push them there.',
    { remote, path },
  );
}

/** Imports the capsule into the clone at `path`, whose base commit must be here: null when done, else the refusal (nothing touched). */
export async function importCarried(run: GitRunner, path: string, remote: string, capsule: CapsuleToApply): Promise<PinFailure | null> {
  if ((await revParse(run, path, `${capsule.base}^{commit}`)) === null) {
    return refuse(
      'commit_missing',
      `The commit ${capsule.base.slice(0, 7)} the carried changes are based on is not on the remote.`,
      'Push the branch as far as its upstream from the source device, then retry.',
      { remote, path },
    );
  }
  const failed = await importCapsule(run, path, capsule);
  return failed === null
    ? null
    : refuse('carry_mismatch', `The carried changes cannot be used in ${path}: ${failed}.`, 'Move the session again.', { remote, path });
}

/** The paths uncommitted once the carried state is in place (what a status would list, without reading the tree again), sorted. */
const carriedDirt = (run: GitRunner, path: string, capsule: CapsuleToApply) =>
  treesDiffer(run, path, [capsule.head, capsule.indexTree, capsule.workTree]);

/**
 * Whether the clone at `path` holds exactly the capsule's state already — on `branch`, its HEAD,
 * index and working tree — and then what it leaves uncommitted; null when it does not.
 */
export async function alreadyCarried(run: GitRunner, path: string, branch: string, capsule: CapsuleToApply): Promise<string[] | null> {
  const head = await run(['symbolic-ref', '-q', 'HEAD'], { cwd: path });
  if (head.stdout.trim() !== `refs/heads/${branch}`) return null;
  const scratch = await mkdtemp(join(tmpdir(), 'baton-carry-'));
  try {
    if ((await verifyWorkingState(run, path, capsule, scratch)) !== null) return null;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const dirty = await carriedDirt(run, path, capsule);
  return typeof dirty === 'string' ? null : dirty;
}

/** What a pin does with carried work once the checkout is at its HEAD: the dirt it leaves, or the refusal (the checkout then put back). */
export type AppliedCarry = { ok: true; dirty: string[]; undo(): Promise<string | null> } | PinFailure;

/**
 * Restores and proves the capsule's working state in the clone at `path`, which the pin just left
 * clean at its HEAD; `before` is where the checkout was, `cloned` that the pin made it (then undoing
 * removes the clone). On any difference the checkout is put back and the refusal says so.
 */
export async function applyCarried(
  run: GitRunner,
  at: { path: string; remote: string; cloned: boolean },
  capsule: CapsuleToApply,
  before: CheckoutBefore,
): Promise<AppliedCarry> {
  const undo = async () =>
    at.cloned
      ? rm(at.path, { recursive: true, force: true }).then(
          () => null,
          (error: Error) => error.message,
        )
      : undoCarry(run, at.path, capsule, before);
  const scratch = await mkdtemp(join(tmpdir(), 'baton-carry-'));
  try {
    const why = (await restoreWorkingState(run, at.path, capsule)) ?? (await verifyWorkingState(run, at.path, capsule, scratch));
    if (why !== null) return mismatch(at.path, at.remote, why, await undo());
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const dirty = await carriedDirt(run, at.path, capsule);
  if (typeof dirty === 'string') return mismatch(at.path, at.remote, dirty, await undo());
  return { ok: true, dirty, undo };
}
