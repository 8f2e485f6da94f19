import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { checkDirectory, createGitRunner, gitFailureText } from './git-runner.ts';

let box: GitSandbox;
beforeEach(() => {
  box = createGitSandbox();
});
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

  it('returns the exit code of a call that fails without writing to stderr', async () => {
    const repo = box.clone(box.makeOrigin('app'), 'repo');
    const first = box.head(repo);
    box.commitFile(repo, 'b.txt', 'b\n');
    const run = createGitRunner({ env: box.env });
    expect(await run(['merge-base', '--is-ancestor', 'HEAD', first], { cwd: repo })).toEqual({ code: 1, stdout: '', stderr: '' });
    expect(await run(['merge-base', '--is-ancestor', first, 'HEAD'], { cwd: repo })).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('returns as soon as a process that writes nothing has exited', async () => {
    const repo = box.clone(box.makeOrigin('app'), 'repo');
    const run = createGitRunner({ env: box.env });
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      expect(await run(['diff', '--quiet'], { cwd: repo })).toEqual({ code: 0, stdout: '', stderr: '' });
      times.push(performance.now() - start);
    }
    // simple-git on its own waits 50 ms after such a process closes.
    expect(Math.min(...times)).toBeLessThan(45);
  });

  it('refuses a relative, missing or NUL-bearing working directory without running git', async () => {
    const run = createGitRunner({ env: box.env });
    for (const cwd of ['relative/dir', join(box.root, 'missing'), `${box.root}\0x`]) {
      expect(await run(['status'], { cwd })).toMatchObject({ code: -1, error: 'invalid_path' });
    }
    expect(await run(['status', 'a\0b'], { cwd: box.root })).toMatchObject({ code: -1, error: 'invalid_argument' });
    expect(await run([], { cwd: box.root })).toMatchObject({ code: -1, error: 'invalid_argument' });
  });

  it('refuses arguments that would make git run another program, without running git', async () => {
    const repo = box.clone(box.makeOrigin('app'), 'repo');
    const run = createGitRunner({ env: box.env });
    const marker = join(box.root, 'ran');
    const pager = await run(['-c', `core.pager=touch ${marker}`, '-p', 'log', '-1'], { cwd: repo });
    expect(pager).toMatchObject({ code: -1, error: 'invalid_argument' });
    expect(pager.stderr).toMatch(/core.pager is refused/);
    // What the guard does not set itself simple-git still refuses.
    const alias = await run(['-c', `alias.x=!touch ${marker}`, 'x'], { cwd: repo });
    expect(alias).toMatchObject({ code: -1, error: 'invalid_argument' });
    expect(alias.stderr).toMatch(/allowUnsafeAlias/);
    const pack = await run(['fetch', `--upload-pack=touch ${marker}`, 'origin'], { cwd: repo });
    expect(pack).toMatchObject({ code: -1, error: 'invalid_argument' });
    expect(existsSync(marker)).toBe(false);
  });

  it('passes its own -c settings, opening only the capabilities it is given', async () => {
    const settings = ['alias.st=status', 'core.untrackedCache=false'];
    const refused = createGitRunner({ env: box.env, config: settings });
    expect(await refused(['config', '--get', 'core.untrackedCache'], { cwd: box.root })).toMatchObject({
      code: -1,
      error: 'invalid_argument',
    });
    const run = createGitRunner({ env: box.env, config: settings, unsafe: { allowUnsafeAlias: true } });
    expect(await run(['config', '--get', 'core.untrackedCache'], { cwd: box.root })).toEqual({ code: 0, stdout: 'false\n', stderr: '' });
  });

  it("drops editor and pager programs from the environment but keeps the user's ssh command", async () => {
    const repo = box.clone(box.makeOrigin('app'), 'repo');
    const run = createGitRunner({ env: { ...box.env, EDITOR: 'not-an-editor', GIT_PAGER: 'not-a-pager' } });
    expect((await run(['var', 'GIT_EDITOR'], { cwd: repo })).stdout.trim()).not.toBe('not-an-editor');
    expect((await run(['var', 'GIT_PAGER'], { cwd: repo })).stdout.trim()).not.toBe('not-a-pager');
    const ssh = join(box.root, 'ssh.sh');
    const used = join(box.root, 'ssh-used');
    writeFileSync(ssh, `#!/bin/sh\ntouch '${used}'\nexit 1\n`, { mode: 0o755 });
    const fetched = await run(['ls-remote', 'ssh://example.invalid/app.git'], { cwd: repo, env: { GIT_SSH_COMMAND: ssh } });
    expect(fetched.code).not.toBe(0);
    expect(existsSync(used)).toBe(true);
  });

  it('reports a git executable that cannot be started as spawn_failed', async () => {
    const run = createGitRunner({ env: box.env, gitPath: join(box.root, 'no-such-git') });
    const result = await run(['status'], { cwd: box.root });
    expect(result).toMatchObject({ code: -1, error: 'spawn_failed' });
    expect(result.stderr).toMatch(/ENOENT/);
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
