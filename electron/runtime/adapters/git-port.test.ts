import { describe, expect, it } from 'vitest';
import { createGitRunner, type GitRunner } from '../../git/git-runner.ts';
import { gitPort } from './git-port.ts';

/** The real runner (git at `gitPath`), counting the processes it runs. */
function countingRunner(gitPath?: string): { run: GitRunner; calls: () => number } {
  const real = createGitRunner(gitPath ? { gitPath } : {});
  let calls = 0;
  return {
    run: (args, options) => {
      calls += 1;
      return real(args, options);
    },
    calls: () => calls,
  };
}

describe('gitPort.available', () => {
  it('runs git once: after it has run, git is taken to stay', async () => {
    const { run, calls } = countingRunner();
    const git = gitPort(run);
    expect(await git.available()).toBe(true);
    expect(await git.available()).toBe(true);
    expect(calls()).toBe(1);
  });

  it('looks again on every ask while git cannot run, so one installed later is found', async () => {
    const { run, calls } = countingRunner('/nonexistent/git');
    const git = gitPort(run);
    expect(await git.available()).toBe(false);
    expect(await git.available()).toBe(false);
    expect(calls()).toBe(2);
  });
});
