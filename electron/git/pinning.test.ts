import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { createGitRunner, type GitRunner } from './git-runner.ts';
import { pinWorkspace, type PinDeps } from './pinning.ts';
import type { GitTransferReport } from './transfer-progress.ts';

let box: GitSandbox;
let origin: string;
let source: string;
let root: string;
let deps: PinDeps;

/** Commits on the source's feature branch and pushes it; returns the pinned commit. */
function pushFeature(): string {
  box.branchWithUpstream(source, 'feature/x');
  box.commitFile(source, 'src/a.ts', 'export const a = 1;\n');
  const sha = box.commitFile(source, 'src/b.ts', 'export const b = 2;\n');
  box.push(source);
  return sha;
}

const branchOf = (repo: string) => box.git(repo, ['symbolic-ref', '--short', 'HEAD']);

beforeEach(() => {
  box = createGitSandbox();
  origin = box.makeOrigin('app');
  source = box.clone(origin, 'source/app');
  root = join(box.root, 'target-workspace');
  mkdirSync(root);
  deps = { run: createGitRunner({ env: box.env }), workspaceRoot: root };
});
afterEach(() => box.cleanup());

describe('workspace pinning', () => {
  it('clones a repository the device lacks and checks out the branch at exactly the pinned commit', async () => {
    const sha = pushFeature();
    box.commitFile(source, 'src/later.ts', 'later');
    box.push(source); // the remote moved on after the pin
    const outcome = await pinWorkspace([{ remote: origin, branch: 'feature/x', commit: sha }], deps);
    const path = join(root, 'app');
    expect(outcome).toEqual({
      ok: true,
      value: { repos: [{ remote: origin, branch: 'feature/x', commit: sha, path, cloned: true, tracking: 'origin/feature/x', dirty: [] }] },
    });
    expect(box.head(path)).toBe(sha);
    expect(branchOf(path)).toBe('feature/x');
    expect(existsSync(join(path, 'src/later.ts'))).toBe(false);
    expect(box.git(path, ['status', '--porcelain'])).toBe('');
    expect(box.git(path, ['rev-parse', '--abbrev-ref', '@{upstream}'])).toBe('origin/feature/x');
  });

  it('fast-forwards an existing clone that is behind the pin, found by another URL form of its remote', async () => {
    const target = box.clone(origin, join(root, 'my-app'));
    box.git(target, ['checkout', '-q', '-b', 'feature/x']);
    const sha = pushFeature();
    const outcome = await pinWorkspace([{ remote: `file://${origin}`, branch: 'feature/x', commit: sha }], deps);
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, cloned: false }] } });
    expect(box.head(target)).toBe(sha);
    expect(readFileSync(join(target, 'src/b.ts'), 'utf8')).toBe('export const b = 2;\n');
  });

  it('moves an existing local branch the clone is not on, and switches to it', async () => {
    const target = box.clone(origin, join(root, 'app'));
    const sha = box.commitFile(source, 'next.txt', 'n');
    box.push(source);
    box.git(target, ['checkout', '-q', '-b', 'elsewhere']);
    expect(await pinWorkspace([{ remote: origin, branch: 'main', commit: sha }], deps)).toMatchObject({ ok: true });
    expect(branchOf(target)).toBe('main');
    expect(box.head(target)).toBe(sha);
  });

  it('refuses a dirty clone and leaves its files, HEAD and branch untouched', async () => {
    const target = box.clone(origin, join(root, 'app'));
    box.writeFile(target, 'README.md', 'my own edit\n');
    const before = box.head(target);
    const sha = pushFeature();
    const outcome = await pinWorkspace([{ remote: origin, branch: 'feature/x', commit: sha }], deps);
    expect(outcome).toMatchObject({
      ok: false,
      code: 'target_workspace_dirty',
      path: target,
      details: { files: ['README.md'], fileCount: 1 },
    });
    expect(outcome.ok ? '' : outcome.fix).toMatch(/stash/);
    expect(readFileSync(join(target, 'README.md'), 'utf8')).toBe('my own edit\n');
    expect(box.head(target)).toBe(before);
    expect(branchOf(target)).toBe('main');
  });

  it('refuses a clean clone stopped in the middle of a cherry-pick, leaving it there', async () => {
    const target = box.clone(origin, join(root, 'app'));
    // What a cherry-pick stopped after resolving leaves behind: a clean tree and its marker.
    box.writeFile(target, '.git/CHERRY_PICK_HEAD', `${box.head(target)}\n`);
    const sha = pushFeature();
    const outcome = await pinWorkspace([{ remote: origin, branch: 'feature/x', commit: sha }], deps);
    expect(outcome).toMatchObject({ ok: false, code: 'target_workspace_dirty', details: { operation: 'cherry-pick' } });
    expect(branchOf(target)).toBe('main');
  });

  it('refuses a branch holding local commits the pinned commit does not contain', async () => {
    const target = box.clone(origin, join(root, 'app'));
    const sha = pushFeature();
    box.git(target, ['fetch', '-q']);
    box.git(target, ['checkout', '-q', '-b', 'feature/x', 'origin/main']);
    const local = box.commitFile(target, 'mine.txt', 'local work');
    const outcome = await pinWorkspace([{ remote: origin, branch: 'feature/x', commit: sha }], deps);
    expect(outcome).toMatchObject({ ok: false, code: 'target_branch_diverged', details: { localCommits: 1 } });
    expect(box.head(target)).toBe(local);
  });

  it('refuses a commit the remote does not have', async () => {
    box.commitFile(source, 'unpushed.txt', 'u');
    const outcome = await pinWorkspace([{ remote: origin, branch: 'main', commit: box.head(source) }], deps);
    expect(outcome).toMatchObject({ ok: false, code: 'commit_missing' });
  });

  it('refuses a malformed pin before running git', async () => {
    const bad = await pinWorkspace([{ remote: origin, branch: '--upload-pack=evil', commit: 'a'.repeat(40) }], deps);
    expect(bad).toMatchObject({ ok: false, code: 'invalid_pin' });
    expect(await pinWorkspace([{ remote: origin, branch: 'main', commit: 'HEAD' }], deps)).toMatchObject({
      ok: false,
      code: 'invalid_pin',
    });
  });

  it('pins two repositories together, one cloned and one existing', async () => {
    const libOrigin = box.makeOrigin('lib');
    const libTarget = box.clone(libOrigin, join(root, 'lib'));
    const libSource = box.clone(libOrigin, 'source/lib');
    const libSha = box.commitFile(libSource, 'lib.ts', 'lib');
    box.push(libSource);
    const appSha = pushFeature();
    const outcome = await pinWorkspace(
      [
        { remote: origin, branch: 'feature/x', commit: appSha },
        { remote: libOrigin, branch: 'main', commit: libSha },
      ],
      deps,
    );
    expect(outcome).toMatchObject({
      ok: true,
      value: {
        repos: [
          { path: join(root, 'app'), cloned: true },
          { path: libTarget, cloned: false },
        ],
      },
    });
    expect(box.head(join(root, 'app'))).toBe(appSha);
    expect(box.head(libTarget)).toBe(libSha);
  });

  it('touches neither repository when the second one is dirty', async () => {
    const libOrigin = box.makeOrigin('lib');
    const appTarget = box.clone(origin, join(root, 'app'));
    const libTarget = box.clone(libOrigin, join(root, 'lib'));
    box.writeFile(libTarget, 'scratch.txt', 'wip');
    const appSha = box.commitFile(source, 'next.txt', 'n');
    box.push(source);
    const before = box.head(appTarget);
    const outcome = await pinWorkspace(
      [
        { remote: origin, branch: 'main', commit: appSha },
        { remote: libOrigin, branch: 'main', commit: box.head(libTarget) },
      ],
      deps,
    );
    expect(outcome).toMatchObject({ ok: false, code: 'target_workspace_dirty', path: libTarget });
    expect(box.head(appTarget)).toBe(before);
  });
});

describe('workspace pinning behind the remote', () => {
  it('moves a checked-out branch back to the pin when its extra commits are all on the remote', async () => {
    const target = box.clone(origin, join(root, 'app'));
    const pinned = box.commitFile(source, 'one.txt', '1');
    box.push(source);
    box.commitFile(source, 'two.txt', '2');
    box.push(source);
    box.git(target, ['pull', '-q']);
    expect(await pinWorkspace([{ remote: origin, branch: 'main', commit: pinned }], deps)).toMatchObject({ ok: true });
    expect(box.head(target)).toBe(pinned);
    expect(existsSync(join(target, 'two.txt'))).toBe(false);
  });
});

describe('workspace pinning reads each thing once', () => {
  /** The real runner, recording the subcommand of every git process it starts. */
  function recorded(): { run: GitRunner; subcommands: string[] } {
    const real = createGitRunner({ env: box.env });
    const subcommands: string[] = [];
    return {
      subcommands,
      run: (args, options) => {
        subcommands.push(args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? '');
        return real(args, options);
      },
    };
  }

  it('pins a clone already on the branch at the commit with its status read and a commit lookup: no fetch, no checkout', async () => {
    const target = box.clone(origin, join(root, 'app'));
    const { run, subcommands } = recorded();
    const outcome = await pinWorkspace([{ remote: origin, branch: 'main', commit: box.head(target) }], { run, workspaceRoot: root });
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, cloned: false, dirty: [] }] } });
    expect(subcommands.sort()).toEqual(['rev-parse', 'status']);
  });

  it('takes a tip the prepare step fetched as there (no lookup), checks the branch for local commits, and verifies its checkout with one status read', async () => {
    const target = box.clone(origin, join(root, 'app'));
    const sha = box.commitFile(source, 'next.txt', 'n');
    box.push(source);
    box.git(target, ['fetch', '-q']);
    const { run, subcommands } = recorded();
    const outcome = await pinWorkspace([{ remote: origin, branch: 'main', commit: sha }], {
      run,
      workspaceRoot: root,
      fetched: new Map([[target, sha]]),
    });
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, dirty: [] }] } });
    expect(subcommands).toEqual(['status', 'rev-list', 'reset', 'status']);
    expect(box.head(target)).toBe(sha);
  });

  it('fetches only when the pinned commit is not in the clone yet, reporting git’s own progress up to 100%', async () => {
    const target = box.clone(origin, join(root, 'app'));
    writeFileSync(join(source, 'blob.bin'), randomBytes(256 * 1024));
    box.git(source, ['add', 'blob.bin']);
    const sha = box.commitFile(source, 'note.txt', 'n');
    box.push(source);
    const reports: GitTransferReport[] = [];
    const { run, subcommands } = recorded();
    const outcome = await pinWorkspace([{ remote: origin, branch: 'main', commit: sha }], {
      run,
      workspaceRoot: root,
      progress: (r) => reports.push(r),
    });
    expect(outcome).toMatchObject({ ok: true });
    expect(subcommands.filter((s) => s === 'fetch')).toHaveLength(1);
    expect(reports[0]).toEqual({ step: 'fetch', label: 'app', doneBytes: null, totalBytes: null, percent: null });
    const last = reports.at(-1)!;
    expect(last).toMatchObject({ step: 'fetch', label: 'app', percent: 100 });
    expect(last.doneBytes).toBeGreaterThan(256 * 1024);
    expect(box.head(target)).toBe(sha);
  });

  it('says what the checkout left uncommitted: files the pinned commit no longer ignores', async () => {
    const target = box.clone(origin, join(root, 'app'));
    box.commitFile(target, '.gitignore', 'build/\n');
    box.push(target);
    mkdirSync(join(target, 'build'));
    writeFileSync(join(target, 'build', 'out.js'), 'x');
    box.git(source, ['pull', '-q']);
    box.git(source, ['rm', '-q', '.gitignore']);
    box.git(source, ['commit', '-q', '-m', 'Stop ignoring build/']);
    box.push(source);
    const outcome = await pinWorkspace([{ remote: origin, branch: 'main', commit: box.head(source) }], deps);
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, dirty: ['build/out.js'] }] } });
  });
});
