import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { hostileKit, submoduleOrigin, type HostileKit } from '../../dev-env/hostile-repo.ts';
import { createGitRunner, type GitRunner } from './git-runner.ts';
import { evaluateSourceReadiness } from './readiness.ts';
import { readStatus } from './submodule-status.ts';

let box: GitSandbox;
let kit: HostileKit;
let repo: string;
let guarded: GitRunner;
let asUser: GitRunner;

/** Makes each file's stat differ from the index, so a status read inside must pass it through the filter. */
function unsettle(dir: string, files: string[]): void {
  const past = new Date(Date.now() - 3600_000);
  for (const file of files) utimesSync(join(dir, file), past, past);
}

beforeEach(() => {
  box = createGitSandbox();
  kit = hostileKit(box.root);
  repo = box.clone(box.makeOrigin('app'), 'app');
  // A submodule listed in .gitmodules, one only in the index (an embedded clone), and one inside the first.
  const lib = box.addSubmodule(repo, 'vendor/lib', submoduleOrigin(box, 'lib'));
  box.addSubmodule(lib, 'deep', submoduleOrigin(box, 'deep'), false);
  box.git(repo, ['add', 'vendor/lib']);
  box.git(repo, ['commit', '-q', '-m', 'Take the nested submodule']);
  box.addSubmodule(repo, 'tools/embedded', submoduleOrigin(box, 'tool'), false);
  for (const path of ['vendor/lib', 'vendor/lib/deep', 'tools/embedded']) kit.armSubmodule(repo, path);
  for (const path of ['vendor/lib', 'vendor/lib/deep', 'tools/embedded']) unsettle(join(repo, path), ['README.md', '.gitattributes']);
  kit.clear();
  guarded = createGitRunner({ env: box.env });
  asUser = createGitRunner({ env: box.env, asUser: true });
});
afterEach(() => box.cleanup());

describe('a status read with submodules', () => {
  it('reads clean submodules as clean and runs none of their own programs, which git left to itself runs', async () => {
    const read = await readStatus(guarded, repo);
    expect(read).toMatchObject({ ok: true, status: { branch: 'main', changed: [], untracked: [], conflicted: [], dirtySubmodules: [] } });
    expect(kit.fired()).toEqual([]);
    await asUser(['status', '--porcelain=v2'], { cwd: repo });
    expect(kit.fired()).toEqual(expect.arrayContaining(['submodule-clean', 'submodule-fsmonitor']));
  });

  it('lists what each submodule, at any depth, holds uncommitted under its own path', async () => {
    writeFileSync(join(repo, 'vendor/lib/draft.txt'), 'draft\n');
    writeFileSync(join(repo, 'vendor/lib/deep/scratch.txt'), 'scratch\n');
    writeFileSync(join(repo, 'tools/embedded/README.md'), 'edited\n');
    const read = await readStatus(guarded, repo, { args: ['--untracked-files=all'] });
    if (!read.ok) throw new Error(read.result.stderr);
    expect(read.status.changed).toEqual(['tools/embedded/README.md']);
    expect(read.status.untracked.sort()).toEqual(['vendor/lib/deep/scratch.txt', 'vendor/lib/draft.txt']);
    expect(read.status.dirtySubmodules.sort()).toEqual(['tools/embedded', 'vendor/lib', 'vendor/lib/deep']);
    expect(kit.fired()).toEqual([]);
  });

  it('blocks readiness on a dirty submodule, naming its files, and offers no Commit that could not commit them', async () => {
    writeFileSync(join(repo, 'vendor/lib/deep/scratch.txt'), 'scratch\n');
    const report = await evaluateSourceReadiness([repo], { run: guarded });
    expect(report.ready).toBe(false);
    const [dirty] = report.blockers;
    expect(dirty).toMatchObject({
      code: 'dirty_tree',
      details: { files: ['vendor/lib/deep/scratch.txt'], fileCount: 1, submodules: ['vendor/lib', 'vendor/lib/deep'] },
    });
    expect(dirty?.action).toBeUndefined();
    expect(dirty?.fix).toMatch(/^git -C vendor\/lib\/deep add -A .* git -C vendor\/lib add -A .* git add -A/);
    expect(kit.fired()).toEqual([]);
  });

  it('lists a submodule whose commit moved from the one recorded, without looking inside it', async () => {
    box.git(join(repo, 'tools/embedded'), [
      '-c',
      'core.hooksPath=/dev/null',
      '-c',
      'core.fsmonitor=false',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'On',
    ]);
    kit.clear();
    const read = await readStatus(guarded, repo);
    expect(read).toMatchObject({ ok: true, status: { changed: ['tools/embedded'], dirtySubmodules: [] } });
    expect(kit.fired()).toEqual([]);
  });

  it('fetches, checks out and resets without entering a submodule, where git left to itself fetches', async () => {
    const head = box.head(repo, 'HEAD');
    for (const args of [
      ['fetch', '-q', 'origin'],
      ['checkout', '-q', '--no-track', '-B', 'other', head],
      ['reset', '-q', '--keep', head],
    ])
      expect((await guarded(args, { cwd: repo })).code).toBe(0);
    expect(kit.fired()).toEqual([]);
    // The user's own fetch goes into the listed submodule, as its config asks, and runs its upload-pack.
    await asUser(['fetch', '-q', 'origin'], { cwd: repo });
    expect(kit.fired()).toContain('submodule-upload-pack');
  });

  it('fails, rather than call them clean, on submodules nested deeper than it reads', async () => {
    const chain = Array.from({ length: 10 }, (_, depth) => join(box.root, 'nested', ...Array<string>(depth).fill('s')));
    for (const dir of chain) {
      mkdirSync(dir, { recursive: true });
      box.git(dir, ['init', '-q', '-b', 'main']);
    }
    box.commitFile(chain[9]!, 'deepest.txt', 'deep\n');
    for (const dir of chain.slice(0, 9).reverse()) {
      box.git(dir, ['add', 's']);
      box.git(dir, ['commit', '-q', '-m', 'Nest']);
    }
    const read = await readStatus(guarded, chain[0]!);
    expect(read).toMatchObject({ ok: false, where: chain[8], result: { stderr: expect.stringMatching(/nested more than 8 deep/) } });
  });

  it('costs one status read in a repository without submodules', async () => {
    const plain = box.clone(box.makeOrigin('plain'), 'plain');
    const calls: string[][] = [];
    const counted: GitRunner = (args, options) => {
      calls.push([...args]);
      return guarded(args, options);
    };
    expect((await readStatus(counted, plain)).ok).toBe(true);
    expect(calls.map((c) => c[0])).toEqual(['status']);
    calls.length = 0;
    expect((await readStatus(counted, repo)).ok).toBe(true);
    expect(calls.filter((c) => c[0] === 'status')).toHaveLength(4);
  });
});
