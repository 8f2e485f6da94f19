import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { createGitRunner } from './git-runner.ts';
import { evaluateSourceReadiness } from './readiness.ts';

let box: GitSandbox;
let origin: string;
let repo: string;
const evaluate = (repos: string[]) => evaluateSourceReadiness(repos, { run: createGitRunner({ env: box.env }), now: () => 1234 });
const codes = async (r: string) => (await evaluate([r])).blockers.map((b) => b.code);

beforeEach(() => {
  box = createGitSandbox();
  origin = box.makeOrigin('app');
  repo = box.clone(origin, 'app');
});
afterEach(() => box.cleanup());

describe('source readiness', () => {
  it('reports a clean, pushed repository as ready with its branch, upstream, head and remote', async () => {
    const report = await evaluate([repo]);
    expect(report).toEqual({
      ready: true,
      blockers: [],
      evaluatedAt: 1234,
      repos: [{ path: repo, branch: 'main', upstream: 'origin/main', head: box.head(repo), ahead: 0, behind: 0, remoteUrl: origin }],
    });
  });

  it('blocks a modified tracked file as dirty_tree with the file, its count and the commit fix', async () => {
    box.writeFile(repo, 'README.md', 'changed\n');
    const [blocker] = (await evaluate([repo])).blockers;
    expect(blocker).toMatchObject({
      code: 'dirty_tree',
      repo,
      fix: 'git add -A && git commit -m "Describe your change"',
      action: { kind: 'commit', repo },
      details: { files: ['README.md'], fileCount: 1 },
    });
    expect(blocker?.message).toMatch(/app has 1 uncommitted file/);
  });

  it('counts untracked files that are not ignored as dirty, and ignores ignored ones', async () => {
    box.commitFile(repo, '.gitignore', 'build/\n');
    box.push(repo);
    box.writeFile(repo, 'build/out.js', 'x');
    expect(await codes(repo)).toEqual([]);
    box.writeFile(repo, 'notes.txt', 'x');
    const [blocker] = (await evaluate([repo])).blockers;
    expect(blocker).toMatchObject({ code: 'dirty_tree', details: { files: ['notes.txt'], fileCount: 1, untracked: 1 } });
  });

  it('lists each new file inside a new folder, not the folder', async () => {
    box.writeFile(repo, 'notes/parser.md', 'trim before split\n');
    box.writeFile(repo, 'notes/deep/todo.md', 'x');
    const [blocker] = (await evaluate([repo])).blockers;
    expect(blocker).toMatchObject({
      code: 'dirty_tree',
      details: { files: ['notes/deep/todo.md', 'notes/parser.md'], fileCount: 2, untracked: 2 },
    });
    expect(blocker?.message).toMatch(/app has 2 uncommitted files/);
  });

  it('lists at most 20 dirty files but counts them all', async () => {
    for (let i = 0; i < 25; i++) box.writeFile(repo, `f${String(i).padStart(2, '0')}.txt`, 'x');
    const details = (await evaluate([repo])).blockers[0]?.details;
    expect(details?.fileCount).toBe(25);
    expect(details?.files).toHaveLength(20);
  });

  it('blocks unpushed commits with how many, the upstream and the push fix', async () => {
    box.commitFile(repo, 'a.txt', 'a');
    box.commitFile(repo, 'b.txt', 'b');
    const report = await evaluate([repo]);
    expect(report.ready).toBe(false);
    expect(report.blockers).toEqual([
      expect.objectContaining({
        code: 'unpushed_commits',
        fix: 'git push',
        action: { kind: 'push', repo },
        details: { ahead: 2, behind: 0, upstream: 'origin/main', branch: 'main' },
      }),
    ]);
    expect(report.repos[0]?.ahead).toBe(2);
  });

  it('asks to integrate first when the branch is both ahead of and behind its upstream', async () => {
    const other = box.clone(origin, 'other');
    box.commitFile(other, 'theirs.txt', 't');
    box.push(other);
    box.git(repo, ['fetch', '-q']);
    box.commitFile(repo, 'ours.txt', 'o');
    const [blocker] = (await evaluate([repo])).blockers;
    expect(blocker).toMatchObject({ code: 'unpushed_commits', fix: 'git pull --rebase && git push', details: { ahead: 1, behind: 1 } });
    expect(blocker?.action).toBeUndefined();
  });

  it('blocks a branch without upstream with the exact `git push -u origin <branch>` fix', async () => {
    box.git(repo, ['checkout', '-q', '-b', 'feature/x']);
    const [blocker] = (await evaluate([repo])).blockers;
    expect(blocker).toMatchObject({ code: 'no_upstream', fix: 'git push -u origin feature/x', action: { kind: 'push', repo } });
  });

  it('blocks a detached HEAD', async () => {
    box.git(repo, ['checkout', '-q', '--detach']);
    const [blocker] = (await evaluate([repo])).blockers;
    expect(blocker?.code).toBe('detached_head');
    expect(blocker?.fix).toMatch(/^git switch -c work-[0-9a-f]{7} && git push -u origin work-/);
  });

  it('blocks a merge in progress, with its conflicted file and no commit action', async () => {
    box.startConflict(repo, 'merge');
    const blockers = (await evaluate([repo])).blockers;
    expect(blockers.map((b) => b.code)).toEqual(['operation_in_progress', 'dirty_tree', 'unpushed_commits']);
    expect(blockers[0]).toMatchObject({ details: { operation: 'merge' }, fix: 'git merge --continue  (or: git merge --abort)' });
    expect(blockers[1]).toMatchObject({ details: { files: ['README.md'], conflicted: 1 } });
    expect(blockers[1]?.action).toBeUndefined();
  });

  it('reports a rebase in progress without also calling it a detached HEAD', async () => {
    box.startConflict(repo, 'rebase');
    const blockers = (await evaluate([repo])).blockers;
    expect(blockers[0]).toMatchObject({ code: 'operation_in_progress', details: { operation: 'rebase' } });
    expect(blockers.map((b) => b.code)).not.toContain('detached_head');
  });

  it('reports several blockers of one repository together', async () => {
    box.git(repo, ['checkout', '-q', '-b', 'feature/y']);
    box.commitFile(repo, 'a.txt', 'a');
    box.writeFile(repo, 'a.txt', 'changed');
    expect(await codes(repo)).toEqual(['dirty_tree', 'no_upstream']);
  });

  it('blocks a two-repo workspace on the second repository only when only it is dirty', async () => {
    const second = box.clone(box.makeOrigin('lib'), 'lib');
    box.writeFile(second, 'wip.ts', 'x');
    const report = await evaluate([repo, second]);
    expect(report.ready).toBe(false);
    expect(report.blockers.map((b) => [b.code, b.repo])).toEqual([['dirty_tree', second]]);
    expect(report.repos.map((r) => r.path)).toEqual([repo, second]);
  });

  it('blocks a folder that is not a git repository, and a missing one', async () => {
    const plain = join(box.root, 'plain');
    mkdirSync(plain);
    const report = await evaluate([plain, join(box.root, 'missing')]);
    expect(report.blockers.map((b) => b.code)).toEqual(['not_a_repository', 'not_a_repository']);
  });

  it('reads the remote of a linked worktree through its .git file', async () => {
    const tree = join(box.root, 'tree');
    box.git(repo, ['worktree', 'add', '-q', '-b', 'wt', tree]);
    box.git(tree, ['push', '-q', '-u', 'origin', 'wt']);
    const report = await evaluate([tree]);
    expect(report.ready).toBe(true);
    expect(report.repos[0]).toMatchObject({ branch: 'wt', upstream: 'origin/wt', remoteUrl: origin });
  });
});
