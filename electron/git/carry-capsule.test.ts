import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkoutSnapshot,
  commitUnpushed,
  makeEveryKindOfChange,
  seedCarryRepo,
  statusOf,
  worktreeSnapshot,
} from '../../dev-env/carry-fixtures.ts';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { importCapsule, restoreWorkingState, verifyWorkingState, type CapsuleToApply } from './carry-apply.ts';
import { buildCapsule, type Capsule } from './carry-capsule.ts';
import { createGitRunner, type GitRunner } from './git-runner.ts';
import { evaluateRepo } from './readiness.ts';

let box: GitSandbox;
let run: GitRunner;
let origin: string;
let source: string;
let scratch: string;

beforeEach(() => {
  box = createGitSandbox();
  run = createGitRunner({ env: box.env });
  origin = box.makeOrigin('app');
  source = box.clone(origin, 'laptop/app');
  seedCarryRepo(box, source);
  scratch = mkdtempSync(join(tmpdir(), 'baton-capsule-'));
});
afterEach(() => {
  box.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** Readiness's read of the source, and the capsule built from it. */
async function capsuleOf(repo: string): Promise<Capsule> {
  const { carry } = await evaluateRepo(repo, { run });
  if (!carry) throw new Error('nothing to carry');
  const built = await buildCapsule(run, carry, join(scratch, 'capsule'));
  if (!built.ok) throw new Error(built.message);
  return built.value;
}

/** Applies `capsule` to a fresh clone of the origin at `name`, as the pin would: base there, HEAD checked out, then the working state. */
async function applyToClone(capsule: Capsule, name: string): Promise<string> {
  const target = box.clone(origin, name);
  const apply: CapsuleToApply = { ...capsule, bundlePath: capsule.bundle.path };
  expect(await importCapsule(run, target, apply)).toBeNull();
  box.git(target, ['checkout', '-q', '-B', 'main', capsule.head]);
  expect(await restoreWorkingState(run, target, apply)).toBeNull();
  expect(await verifyWorkingState(run, target, apply, join(scratch, `verify-${name.replace('/', '-')}`))).toBeNull();
  return target;
}

const looseObjects = (repo: string) => readdirSync(join(repo, '.git', 'objects')).length;

describe('the carried capsule', () => {
  it('rebuilds every kind of change on the target exactly: staged stays staged, modes, symlinks, binary files, no ignored file', async () => {
    commitUnpushed(box, source);
    makeEveryKindOfChange(box, source);
    const capsule = await capsuleOf(source);
    const target = await applyToClone(capsule, 'desk/app');
    expect(statusOf(box, target)).toBe(statusOf(box, source));
    const carried = worktreeSnapshot(source);
    for (const ignored of ['build/out.js', 'debug.log']) delete carried[ignored];
    expect(worktreeSnapshot(target)).toEqual(carried);
    expect(box.head(target)).toBe(box.head(source));
    expect(box.git(target, ['write-tree'])).toBe(capsule.indexTree);
  });

  it('writes nothing into the source: its files, index, HEAD and object store stay byte for byte as they were', async () => {
    commitUnpushed(box, source);
    makeEveryKindOfChange(box, source);
    const before = checkoutSnapshot(box, source);
    const objects = looseObjects(source);
    await capsuleOf(source);
    expect(checkoutSnapshot(box, source)).toEqual(before);
    expect(looseObjects(source)).toBe(objects);
  });

  it('makes the same capsule of the same work, and carries unpushed commits alone as a clean checkout at HEAD', async () => {
    const head = commitUnpushed(box, source);
    const first = await capsuleOf(source);
    rmSync(join(scratch, 'capsule'), { recursive: true });
    const again = await capsuleOf(source);
    expect(again).toMatchObject({ head, indexTree: first.indexTree, workTree: first.workTree, bundle: { size: first.bundle.size } });
    const target = await applyToClone(again, 'desk/app');
    expect(statusOf(box, target)).toBe(statusOf(box, source));
    expect(box.head(target)).toBe(head);
  });

  it('refuses a capsule whose base the target does not have, touching nothing', async () => {
    commitUnpushed(box, source);
    box.writeFile(source, 'src/app.ts', 'changed\n');
    const capsule = await capsuleOf(source);
    const elsewhere = box.clone(box.makeOrigin('other'), 'desk/other');
    const before = checkoutSnapshot(box, elsewhere);
    const refused = await importCapsule(run, elsewhere, { ...capsule, bundlePath: capsule.bundle.path });
    expect(refused).toMatch(/do not apply here/);
    expect(checkoutSnapshot(box, elsewhere)).toEqual(before);
  });
});
