import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { checkDirectory, createGitRunner, gitFailureText } from './git-runner.ts';

let box: GitSandbox;
beforeEach(() => { box = createGitSandbox(); });
afterEach(() => box.cleanup());

describe('git runner', () => {
  it('runs git with an argument array and the injected env, returning code, stdout and stderr', async () => {
    const run = createGitRunner({ env: box.env });
    const result = await run(['config', '--get', 'init.defaultBranch'], { cwd: box.root });
    expect(result).toEqual({ code: 0, stdout: 'main\n', stderr: '' });
    const home = await run(['var', 'GIT_AUTHOR_IDENT'], { cwd: box.root, env: { GIT_AUTHOR_NAME: 'Override' } });
    expect(home.stdout).toMatch(/^Override <test@baton.invalid>/);
  });

  it('passes shell metacharacters through as plain arguments', async () => {
    const run = createGitRunner({ env: box.env });
    const result = await run(['check-ref-format', '--branch', 'a;$(touch pwned)'], { cwd: box.root });
    expect(result.code).not.toBe(0);
    expect(checkDirectory(join(box.root, 'pwned')).ok).toBe(false);
  });

  it('returns a failed call as a value with its exit code and stderr', async () => {
    const run = createGitRunner({ env: box.env });
    const result = await run(['rev-parse', 'HEAD'], { cwd: box.root });
    expect(result.code).toBe(128);
    expect(gitFailureText(result)).toMatch(/not a git repository/);
  });

  it('refuses a relative, missing or NUL-bearing working directory without running git', async () => {
    const run = createGitRunner({ env: box.env });
    for (const cwd of ['relative/dir', join(box.root, 'missing'), `${box.root}\0x`]) {
      expect(await run(['status'], { cwd })).toMatchObject({ code: -1, error: 'invalid_path' });
    }
    expect(await run(['status', 'a\0b'], { cwd: box.root })).toMatchObject({ code: -1, error: 'invalid_argument' });
  });

  it('stops a call whose output exceeds the bound', async () => {
    const run = createGitRunner({ env: box.env });
    const result = await run(['help', '-a'], { cwd: box.root, maxOutputBytes: 64 });
    expect(result).toMatchObject({ code: -1, error: 'output_limit' });
  });

  it('stops a call that outlives its timeout', async () => {
    const run = createGitRunner({ env: box.env });
    box.git(box.root, ['init', '-q', 'r']);
    // `cat-file --batch` waits on its open stdin until it is stopped.
    const result = await run(['cat-file', '--batch'], { cwd: join(box.root, 'r'), timeoutMs: 200 });
    expect(result).toMatchObject({ code: -1, error: 'timeout' });
  });
});
