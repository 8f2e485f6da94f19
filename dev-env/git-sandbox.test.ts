import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitSandbox, TEST_AUTHOR, type GitSandbox } from './git-sandbox.ts';

describe('git test sandbox', () => {
  let box: GitSandbox | undefined;
  afterEach(() => box?.cleanup());

  it('clones a bare origin on main with a pinned author and a blank HOME', () => {
    box = createGitSandbox();
    const origin = box.makeOrigin('app');
    const repo = box.clone(origin, 'work/app');
    expect(box.git(repo, ['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('main');
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# app\n');
    const sha = box.commitFile(repo, 'src/a.txt', 'a\n');
    expect(box.git(repo, ['log', '-1', '--format=%an <%ae> / %cn <%ce>'])).toBe(
      `${TEST_AUTHOR.name} <${TEST_AUTHOR.email}> / ${TEST_AUTHOR.name} <${TEST_AUTHOR.email}>`,
    );
    expect(box.env.HOME).toBe(box.home);
    box.push(repo);
    expect(box.git(origin, ['rev-parse', 'main'])).toBe(sha);
  });

  it('creates a branch tracking origin, stops a cherry-pick on a conflict, and removes everything on cleanup', () => {
    box = createGitSandbox();
    const repo = box.clone(box.makeOrigin('lib'), 'lib');
    box.branchWithUpstream(repo, 'feature/x');
    expect(box.git(repo, ['rev-parse', '--abbrev-ref', '@{upstream}'])).toBe('origin/feature/x');
    box.startConflict(repo, 'cherry-pick');
    expect(existsSync(join(repo, '.git', 'CHERRY_PICK_HEAD'))).toBe(true);
    box.cleanup();
    expect(existsSync(box.root)).toBe(false);
    box = undefined;
  });
});
