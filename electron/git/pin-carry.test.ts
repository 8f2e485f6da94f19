import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkoutState, commitUnpushed, makeEveryKindOfChange, seedCarryRepo, statusOf } from '../../dev-env/carry-fixtures.ts';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import type { CapsuleToApply } from './carry-apply.ts';
import { buildCapsule } from './carry-capsule.ts';
import { createGitRunner, type GitRunner } from './git-runner.ts';
import { pinWorkspace, type PinDeps } from './pinning.ts';
import { evaluateRepo } from './readiness.ts';

let box: GitSandbox;
let run: GitRunner;
let origin: string;
let laptop: string;
let desk: string;
let scratch: string;

beforeEach(() => {
  box = createGitSandbox();
  run = createGitRunner({ env: box.env });
  origin = box.makeOrigin('app');
  laptop = box.clone(origin, 'laptop/app');
  seedCarryRepo(box, laptop);
  desk = box.clone(origin, 'desk/app');
  scratch = mkdtempSync(join(tmpdir(), 'baton-pin-carry-'));
});
afterEach(() => {
  box.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const deps = (root = join(box.root, 'desk')): PinDeps => ({ run, workspaceRoot: root, knownRepos: [desk] });

/** The capsule of what the laptop holds now, as the desk's pin takes it. */
async function carried(from = laptop, name = 'capsule'): Promise<CapsuleToApply> {
  const { carry } = await evaluateRepo(from, { run });
  if (!carry) throw new Error('nothing to carry');
  const built = await buildCapsule(run, carry, join(scratch, name));
  if (!built.ok) throw new Error(built.message);
  return { ...built.value, bundlePath: built.value.bundle.path };
}

const pin = (capsule: CapsuleToApply) => ({ remote: origin, branch: 'main', commit: capsule.head, carry: capsule });

describe('a pin that carries work', () => {
  it('takes the desk checkout to the laptop exact HEAD, index and working tree, and says what it leaves uncommitted', async () => {
    commitUnpushed(box, laptop);
    makeEveryKindOfChange(box, laptop);
    const capsule = await carried();
    const pinned = await pinWorkspace([pin(capsule)], deps());
    expect(pinned.ok).toBe(true);
    if (!pinned.ok) return;
    expect(pinned.value.repos[0]).toMatchObject({ path: desk, commit: box.head(laptop) });
    expect(pinned.value.repos[0]?.dirty).toContain('notes/untracked new.md');
    expect(statusOf(box, desk)).toBe(statusOf(box, laptop));
  });

  it('carries into a fresh clone when the desk has none', async () => {
    box.writeFile(laptop, 'src/app.ts', 'edited on the laptop\n');
    const capsule = await carried();
    rmSync(desk, { recursive: true, force: true });
    const pinned = await pinWorkspace([pin(capsule)], deps(join(box.root, 'fresh')));
    expect(pinned.ok && statusOf(box, pinned.value.repos[0]!.path)).toBe(statusOf(box, laptop));
  });

  it('puts the desk checkout back as it was, byte for byte, when the working state does not rebuild the same', async () => {
    // The desk normalises line endings where the laptop does not: a CRLF file hashes differently there.
    box.git(desk, ['config', 'core.autocrlf', 'input']);
    const before = checkoutState(box, desk);
    box.writeFile(laptop, 'windows.txt', 'one\r\ntwo\r\n');
    commitUnpushed(box, laptop);
    const pinned = await pinWorkspace([pin(await carried())], deps());
    expect(pinned).toMatchObject({ ok: false, code: 'carry_mismatch' });
    expect(!pinned.ok && pinned.message).toMatch(/put back as it was/);
    expect(checkoutState(box, desk)).toEqual(before);
  });

  it("refuses a capsule whose bundle is another move's, or damaged, and leaves the desk checkout as it was", async () => {
    const before = checkoutState(box, desk);
    box.writeFile(laptop, 'src/app.ts', 'the work this move carries\n');
    const capsule = await carried();
    box.writeFile(laptop, 'other.txt', 'the work of another move\n');
    const other = await carried(laptop, 'other');
    const swapped = await pinWorkspace([pin({ ...capsule, bundlePath: other.bundlePath })], deps());
    expect(swapped.ok).toBe(false);
    expect(checkoutState(box, desk)).toEqual(before);
    const bytes = readFileSync(capsule.bundlePath);
    bytes.fill(0x41, bytes.length - 64);
    writeFileSync(capsule.bundlePath, bytes);
    const damaged = await pinWorkspace([pin(capsule)], deps());
    expect(damaged.ok).toBe(false);
    expect(checkoutState(box, desk)).toEqual(before);
  });

  it('takes a checkout that holds exactly the carried state already (an activation retried), and refuses other dirt', async () => {
    box.writeFile(laptop, 'src/app.ts', 'edited on the laptop\n');
    const capsule = await carried();
    expect((await pinWorkspace([pin(capsule)], deps())).ok).toBe(true);
    const again = await pinWorkspace([pin(capsule)], deps());
    expect(again.ok && again.value.repos[0]?.dirty).toEqual(['src/app.ts']);
    box.writeFile(desk, 'src/other.ts', 'made on the desk\n');
    expect(await pinWorkspace([pin(capsule)], deps())).toMatchObject({ ok: false, code: 'target_workspace_dirty' });
  });

  it('puts carried work back in every repository when another one of the workspace fails to rebuild', async () => {
    box.writeFile(laptop, 'src/app.ts', 'edited on the laptop\n');
    const capsule = await carried();
    const libOrigin = box.makeOrigin('lib');
    const laptopLib = box.clone(libOrigin, 'laptop/lib');
    const deskLib = box.clone(libOrigin, 'desk/lib');
    box.git(deskLib, ['config', 'core.autocrlf', 'input']);
    box.writeFile(laptopLib, 'windows.txt', 'one\r\n');
    const before = [checkoutState(box, desk), checkoutState(box, deskLib)];
    const lib = await carried(laptopLib, 'lib-capsule');
    const pinned = await pinWorkspace([pin(capsule), { ...pin(lib), remote: libOrigin }], { ...deps(), knownRepos: [desk, deskLib] });
    expect(pinned).toMatchObject({ ok: false, code: 'carry_mismatch' });
    expect([checkoutState(box, desk), checkoutState(box, deskLib)]).toEqual(before);
  });
});
