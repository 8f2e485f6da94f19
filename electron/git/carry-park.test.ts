import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitUnpushed, makeEveryKindOfChange, seedCarryRepo, statusOf, worktreeSnapshot } from '../../dev-env/carry-fixtures.ts';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { parkCarried } from './carry-park.ts';
import { createGitRunner, type GitRunner } from './git-runner.ts';

let box: GitSandbox;
let run: GitRunner;
let repo: string;

beforeEach(() => {
  box = createGitSandbox();
  run = createGitRunner({ env: box.env });
  repo = box.clone(box.makeOrigin('app'), 'app');
  seedCarryRepo(box, repo);
});
afterEach(() => box.cleanup());

const message = 'baton: carried to desk at 18:05 (handoff h1)';

describe('parking the carried work on the source', () => {
  it('stashes every change under its name and leaves the checkout clean at the base, from where the stash brings all of it back', async () => {
    const base = box.head(repo);
    const head = commitUnpushed(box, repo);
    makeEveryKindOfChange(box, repo);
    const files = worktreeSnapshot(repo);
    const status = statusOf(box, repo);
    const parked = await parkCarried(run, repo, { base, head, message, handoffId: 'h1' });
    expect(parked).toEqual({ ok: true, value: { stash: message, atBase: true } });
    expect(box.head(repo)).toBe(base);
    expect(box.git(repo, ['status', '--porcelain'])).toBe('');
    expect(box.git(repo, ['stash', 'list', '--format=%gs'])).toBe(`On main: ${message}`);
    // What the person gets back: the commits and every change, staged as it was.
    box.git(repo, ['reset', '-q', '--hard', head]);
    box.git(repo, ['stash', 'pop', '-q', '--index']);
    expect(statusOf(box, repo)).toBe(status);
    const back = worktreeSnapshot(repo);
    for (const ignored of ['build/out.js', 'debug.log']) delete files[ignored];
    expect(back).toMatchObject(files);
  });

  it('keeps unpushed commits of a clean checkout reachable from a stash of the same name, and parks once per handoff', async () => {
    const base = box.head(repo);
    const head = commitUnpushed(box, repo);
    expect((await parkCarried(run, repo, { base, head, message, handoffId: 'h1' })).ok).toBe(true);
    expect((await parkCarried(run, repo, { base, head, message, handoffId: 'h1' })).ok).toBe(true);
    expect(box.git(repo, ['stash', 'list', '--format=%gs']).split('\n')).toEqual([message]);
    expect(box.git(repo, ['rev-list', '-1', 'stash@{0}^1'])).toBe(head);
    expect(box.head(repo)).toBe(base);
  });

  it('stashes changes made after the move too, and leaves a checkout whose HEAD moved since on its commit', async () => {
    const base = box.head(repo);
    const carried = commitUnpushed(box, repo);
    const moved = commitUnpushed(box, repo, 'src/later.ts');
    box.writeFile(repo, 'later.txt', 'written after the move\n');
    const parked = await parkCarried(run, repo, { base, head: carried, message, handoffId: 'h1' });
    expect(parked).toEqual({ ok: true, value: { stash: message, atBase: false } });
    expect(box.head(repo)).toBe(moved);
    expect(box.git(repo, ['stash', 'show', '--include-untracked', '--name-only', 'stash@{0}'])).toContain('later.txt');
  });
});
