import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { createExecGit, gitReader, openGitReader, refusalOf, type GitExec } from './git-read.ts';

let sandbox: GitSandbox;
let repo: string;

beforeAll(() => {
  sandbox = createGitSandbox('baton-packet-gitread-');
  repo = sandbox.clone(sandbox.makeOrigin('app'), 'repo');
});
afterAll(() => sandbox.cleanup());

/** An executor that records every process it would start. */
function counting(): { exec: GitExec; calls: string[][] } {
  const calls: string[][] = [];
  const real = createExecGit(sandbox.env);
  return {
    calls,
    exec: (args, cwd) => {
      calls.push([...args]);
      return real(args, cwd);
    },
  };
}

describe('the read-only git reader', () => {
  it('runs allow-listed reads and returns their output', async () => {
    const reader = gitReader(repo, createExecGit(sandbox.env));
    expect(await reader.read(['branch', '--show-current'])).toEqual({ ok: true, stdout: 'main\n' });
    expect(await reader.read(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).toEqual({
      ok: true,
      stdout: `${sandbox.head(repo)}\n`,
    });
  });

  it('reads with the file-system monitor and the untracked cache switched off, whatever the repository configures', async () => {
    sandbox.git(repo, ['config', 'core.untrackedCache', 'true']);
    const exec = createExecGit(sandbox.env);
    expect(await exec(['config', '--get', 'core.fsmonitor'], repo)).toEqual({ exitCode: 0, stdout: 'false\n', stderr: '' });
    expect(await exec(['config', '--get', 'core.untrackedCache'], repo)).toEqual({ exitCode: 0, stdout: 'false\n', stderr: '' });
    sandbox.git(repo, ['config', '--unset', 'core.untrackedCache']);
  });

  it('refuses write subcommands with a typed value before any process starts', async () => {
    const { exec, calls } = counting();
    const reader = gitReader(repo, exec);
    for (const args of [
      ['commit', '-m', 'x'],
      ['checkout', 'main'],
      ['push'],
      ['reset', '--hard'],
      ['branch', 'new-branch'],
      ['branch', '-D', 'main'],
      ['diff', '--output=/tmp/x', 'HEAD'],
      ['status', 'extra'],
      ['config', 'user.name', 'x'],
      ['-c', 'core.pager=x', 'log'],
      [],
    ]) {
      const result = await reader.read(args);
      expect(result).toMatchObject({ ok: false, code: 'git_read_refused' });
    }
    expect(calls).toEqual([]);
    expect(sandbox.git(repo, ['branch', '--list', 'new-branch'])).toBe('');
  });

  it('names why a read is refused', () => {
    expect(refusalOf(['commit'])).toMatch(/not a read-only subcommand/);
    expect(refusalOf(['diff', '--output=x'])).toMatch(/--output=x is not an allowed/);
    expect(refusalOf(['branch', '--show-current'])).toBeUndefined();
    expect(refusalOf(['diff', '--name-only', 'a', 'b', '--', '-weird-path'])).toBeUndefined();
    expect(refusalOf(['rev-parse', 'a\0b'])).toMatch(/NUL/);
  });

  it('returns a failed read as git_read_failed with the first stderr line', async () => {
    const reader = gitReader(repo, createExecGit(sandbox.env));
    const result = await reader.read(['merge-base', 'HEAD', 'no-such-ref']);
    expect(result).toMatchObject({ ok: false, code: 'git_read_failed' });
  });

  it('opens only absolute paths of existing directories', async () => {
    expect(await openGitReader('relative')).toMatchObject({ ok: false, code: 'git_read_failed' });
    expect(await openGitReader(join(sandbox.root, 'missing'))).toMatchObject({ ok: false, code: 'git_read_failed' });
    const dir = join(sandbox.root, 'plain');
    mkdirSync(dir);
    expect(await openGitReader(dir)).toMatchObject({ ok: true });
  });
});
