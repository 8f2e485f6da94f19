import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { operationInProgress, readRef, readRemoteConfig, readSymbolicRef, remoteForBranch, resolveGitDirs } from './git-dir.ts';
import { createGitRunner } from './git-runner.ts';

let box: GitSandbox;
beforeEach(() => {
  box = createGitSandbox();
});
afterEach(() => box.cleanup());

describe('git dir reads', () => {
  it('resolves the git dir of a clone, of a linked worktree and of a subfolder', async () => {
    const run = createGitRunner({ env: box.env });
    const repo = box.clone(box.makeOrigin('app'), 'app');
    expect(await resolveGitDirs(repo, run)).toEqual({ gitDir: join(repo, '.git'), commonDir: join(repo, '.git') });
    box.git(repo, ['worktree', 'add', '-q', '-b', 'wt', join(box.root, 'wt')]);
    const wt = await resolveGitDirs(join(box.root, 'wt'), run);
    expect(wt).toEqual({ gitDir: join(repo, '.git', 'worktrees', 'wt'), commonDir: join(repo, '.git') });
    mkdirSync(join(repo, 'sub'));
    expect((await resolveGitDirs(join(repo, 'sub'), run))?.gitDir).toBe(join(repo, '.git'));
    mkdirSync(join(box.root, 'plain'));
    expect(await resolveGitDirs(join(box.root, 'plain'), run)).toBeNull();
  });

  it('names the operation in progress from its marker file', async () => {
    const gitDir = join(box.root, 'gd');
    mkdirSync(gitDir);
    expect(operationInProgress(gitDir)).toBeNull();
    writeFileSync(join(gitDir, 'CHERRY_PICK_HEAD'), 'x');
    expect(operationInProgress(gitDir)).toBe('cherry-pick');
    writeFileSync(join(gitDir, 'REVERT_HEAD'), 'x');
    mkdirSync(join(gitDir, 'rebase-merge'));
    expect(operationInProgress(gitDir)).toBe('rebase');
  });

  it('reads remote URLs and branch remotes from the config, quoted values and comments included', async () => {
    const dir = join(box.root, 'cfg');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'config'),
      [
        '[core]',
        '\tbare = false',
        '# a comment',
        '[remote "upstream"]',
        '\turl = "git@github.com:a/b.git"',
        '[remote "origin"]',
        '\turl = https://example.com/me/b',
        '\tfetch = +refs/heads/*:refs/remotes/origin/*',
        '[branch "feature/x"]',
        '\tremote = upstream',
        '\tmerge = refs/heads/feature/x',
      ].join('\n'),
    );
    const config = readRemoteConfig(dir);
    expect([...config.remotes]).toEqual([
      ['upstream', 'git@github.com:a/b.git'],
      ['origin', 'https://example.com/me/b'],
    ]);
    expect(remoteForBranch(config, 'feature/x')).toBe('upstream');
    expect(remoteForBranch(config, 'main')).toBe('origin');
    expect(config.hasIncludes).toBe(false);
  });

  it('reads a ref from its loose file or from packed-refs as git resolves it, and where origin/HEAD points', async () => {
    const repo = box.clone(box.makeOrigin('app'), 'app');
    const gitDir = join(repo, '.git');
    const tip = box.head(repo, 'origin/main');
    expect(readRef(gitDir, 'refs/remotes/origin/main')).toBe(tip);
    box.git(repo, ['pack-refs', '--all']);
    expect(readRef(gitDir, 'refs/remotes/origin/main')).toBe(tip);
    expect(readRef(gitDir, 'refs/remotes/origin/gone')).toBeNull();
    expect(readRef(gitDir, 'refs/../config')).toBeNull();
    expect(readSymbolicRef(gitDir, 'refs/remotes/origin/HEAD')).toBe('refs/remotes/origin/main');
    expect(readSymbolicRef(gitDir, 'refs/remotes/origin/main')).toBeNull();
  });
});
