import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../../dev-env/git-sandbox.ts';
import { createGitRunner, type GitRunner } from '../../git/git-runner.ts';
import { evaluateSourceReadiness } from '../../git/readiness.ts';
import { checkpointRead } from './checkpoint-read.ts';
import { workspaceRepos } from './workspace-repos.ts';

let box: GitSandbox;
let workspace: string;
let subcommands: string[];
let run: GitRunner;

beforeEach(() => {
  box = createGitSandbox('baton-checkpoint-read-');
  workspace = join(box.root, 'ws');
  const real = createGitRunner({ env: box.env });
  subcommands = [];
  run = (args, options) => {
    subcommands.push(args.find((a) => !a.startsWith('-')) ?? '');
    return real(args, options);
  };
});
afterEach(() => box.cleanup());

describe('the checkpoint’s git read', () => {
  it('reads each repository once: its status, its merge base with the default branch and the files changed since, together (none of the last two at the branch tip)', async () => {
    const app = box.clone(box.makeOrigin('app'), join(workspace, 'app'));
    const lib = box.clone(box.makeOrigin('lib'), join(workspace, 'lib'));
    box.branchWithUpstream(app, 'feature/x');
    box.commitFile(app, 'src/a.ts', 'a');
    box.commitFile(app, 'src/b.ts', 'b');
    box.push(app);
    const ref = { workspace, repoPaths: [] };
    const { report, repos } = await checkpointRead(ref, run);
    // lib's HEAD is origin/main's tip: its own merge base, nothing changed, and git is not asked.
    expect(subcommands.sort()).toEqual(['diff', 'merge-base', 'status', 'status']);
    const plain = createGitRunner({ env: box.env });
    expect({ ...report, evaluatedAt: 0 }).toEqual({ ...(await evaluateSourceReadiness([app, lib], { run: plain })), evaluatedAt: 0 });
    expect(repos).toEqual(
      (await workspaceRepos(ref, plain)).map((snapshot, i) => ({ ...snapshot, changedFiles: i === 0 ? ['src/a.ts', 'src/b.ts'] : [] })),
    );
    expect(repos[0]).toMatchObject({
      relPath: 'app',
      branch: 'feature/x',
      baseRef: 'origin/main',
      mergeBase: box.head(app, 'origin/main'),
    });
  });

  it('reports the blockers readiness finds, and without a recorded default branch takes the usual names (leaving the files to the packet)', async () => {
    const app = box.clone(box.makeOrigin('app'), join(workspace, 'app'));
    rmSync(join(app, '.git', 'refs', 'remotes', 'origin', 'HEAD'));
    box.writeFile(app, 'wip.txt', 'w');
    const { report, repos } = await checkpointRead({ workspace: app, repoPaths: [] }, run);
    expect(report.ready).toBe(false);
    expect(report.blockers.map((b) => b.code)).toEqual(['dirty_tree']);
    expect(repos).toEqual([
      expect.objectContaining({ relPath: '.', baseRef: 'origin/main', mergeBase: box.head(app), changedFiles: null }),
    ]);
  });
});
