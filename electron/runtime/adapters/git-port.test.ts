import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../../dev-env/git-sandbox.ts';
import { waitFor } from '../../../dev-env/process-harness.ts';
import { createGitRunner, type GitRunner } from '../../git/git-runner.ts';
import type { CheckoutPlaces } from '../../ports/git.ts';
import { gitPort } from './git-port.ts';

/** The real runner (git at `gitPath`, in `env`), counting the processes it runs, and the status reads among them. */
function countingRunner(gitPath?: string, env?: NodeJS.ProcessEnv): { run: GitRunner; calls: () => number; statuses: () => number } {
  const real = createGitRunner({ ...(gitPath ? { gitPath } : {}), ...(env ? { env } : {}) });
  let calls = 0;
  let statuses = 0;
  return {
    run: (args, options) => {
      calls += 1;
      if (args[0] === 'status') statuses += 1;
      return real(args, options);
    },
    calls: () => calls,
    statuses: () => statuses,
  };
}

/** The places of a device that knows no checkout but its workspace root (nothing ran here before). */
function rootPlaces(workspaceRoot: string): CheckoutPlaces {
  return { workspaceRoot, homes: [], inUse: [], fresh: false };
}

let sandbox: GitSandbox | undefined;
afterEach(() => {
  sandbox?.cleanup();
  sandbox = undefined;
});

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

/** A clone of a fresh origin under a workspace root, and a port counting its git processes. */
function cloneUnderRoot() {
  sandbox = createGitSandbox('baton-read-ahead-');
  const origin = sandbox.makeOrigin('app');
  const root = join(sandbox.root, 'workspaces');
  const clone = sandbox.clone(origin, join(root, 'app'));
  const { run, statuses } = countingRunner(undefined, sandbox.env);
  const repo = { relPath: '.', remoteUrl: origin, branch: 'main' };
  return { root, clone, statuses, git: gitPort(run), repo, pinned: { ...repo, commit: sandbox.head(clone), mergeBase: null } };
}

describe('gitPort.startCloneStatusReads', () => {
  it('gives the pin that follows its clean-status read, so the pin reads the clone no second time, and reads nothing it was not given', async () => {
    const { root, clone, statuses, git, repo, pinned } = cloneUnderRoot();

    git.startCloneStatusReads([repo], rootPlaces(root));
    await waitFor('the read begun ahead', async () => (statuses() === 1 ? true : undefined));
    expect(await git.pin([pinned], rootPlaces(root))).toMatchObject({ ok: true, value: { workspace: clone } });
    expect(statuses()).toBe(1);
    // Taken once: the next pin reads for itself.
    expect((await git.pin([pinned], rootPlaces(root))).ok).toBe(true);
    expect(statuses()).toBe(2);
  });

  it('reads the clone again after prepare read it, so the pin sees a change made since; the pin reads it no third time', async () => {
    const { root, clone, statuses, git, repo, pinned } = cloneUnderRoot();
    expect((await git.prepare([repo], rootPlaces(root))).ok).toBe(true);
    expect(statuses()).toBe(1);
    sandbox!.writeFile(clone, 'README.md', 'changed after prepare\n');
    git.startCloneStatusReads([repo], rootPlaces(root));
    await waitFor('the read begun at the claim', async () => (statuses() === 2 ? true : undefined));
    expect(await git.pin([pinned], rootPlaces(root))).toMatchObject({ ok: false, code: 'target_workspace_dirty' });
    expect(statuses()).toBe(2);
  });

  it('stands for the pin when it found the clone dirty: the pin refuses it', async () => {
    const { root, clone, statuses, git, repo, pinned } = cloneUnderRoot();
    sandbox!.writeFile(clone, 'README.md', 'changed here\n');
    git.startCloneStatusReads([repo], rootPlaces(root));
    await waitFor('the read begun ahead', async () => (statuses() === 1 ? true : undefined));
    expect(await git.pin([pinned], rootPlaces(root))).toMatchObject({
      ok: false,
      code: 'target_workspace_dirty',
    });
    expect(statuses()).toBe(1);
  });
});

describe('gitPort.pin after a prepare', () => {
  it('gives a fork pinned just after a move prepared the same remote a clone of its own, never the move’s checkout', async () => {
    const { root, clone, git, repo, pinned } = cloneUnderRoot();
    expect((await git.prepare([repo], rootPlaces(root))).ok).toBe(true);
    const forkRoot = join(root, '.baton-forks', 'fork-1');
    const forked = await git.pin([pinned], rootPlaces(forkRoot));
    if (!forked.ok) throw new Error(forked.message);
    expect(forked.value.repoPaths).not.toContain(clone);
    expect(forked.value.workspace.startsWith(`${forkRoot}/`)).toBe(true);
    // The move's own pin still takes the clone it prepared.
    expect(await git.pin([pinned], rootPlaces(root))).toMatchObject({ ok: true, value: { workspace: clone } });
  });
});
