import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { HOSTILE_ATTRIBUTES, hostileKit } from '../../dev-env/hostile-repo.ts';
import { createGitRunner } from './git-runner.ts';
import { commitAll, pushRepo, type RemediationDeps } from './remediation.ts';

let box: GitSandbox;
let origin: string;
let repo: string;
let deps: RemediationDeps;

beforeEach(() => {
  box = createGitSandbox();
  origin = box.makeOrigin('app');
  repo = box.clone(origin, 'app');
  deps = { run: createGitRunner({ env: box.env }), asUser: createGitRunner({ env: box.env, asUser: true }) };
});
afterEach(() => box.cleanup());

describe('remediation', () => {
  it('pushes unpushed commits, after which the next evaluation is ready', async () => {
    const sha = box.commitFile(repo, 'a.txt', 'a');
    const { result, report } = await pushRepo(repo, deps);
    expect(result).toEqual({ ok: true, value: { remote: 'origin', branch: 'main', setUpstream: false } });
    expect(box.git(origin, ['rev-parse', 'main'])).toBe(sha);
    expect(report.ready).toBe(true);
  });

  it('sets the upstream when the branch has none, after which the next evaluation is ready', async () => {
    box.git(repo, ['checkout', '-q', '-b', 'feature/x']);
    box.commitFile(repo, 'x.txt', 'x');
    const { result, report } = await pushRepo(repo, deps);
    expect(result).toMatchObject({ ok: true, value: { branch: 'feature/x', setUpstream: true } });
    expect(box.git(repo, ['rev-parse', '--abbrev-ref', '@{upstream}'])).toBe('origin/feature/x');
    expect(report).toMatchObject({ ready: true, repos: [{ upstream: 'origin/feature/x' }] });
  });

  it('commits every change, untracked included, with the typed message; then push makes it ready', async () => {
    box.writeFile(repo, 'README.md', 'edited\n');
    box.writeFile(repo, 'new/file.txt', 'new\n');
    const committed = await commitAll(repo, "Save the agent's work", deps);
    expect(committed.result).toMatchObject({ ok: true, value: { fileCount: 2 } });
    expect(box.git(repo, ['log', '-1', '--format=%s'])).toBe("Save the agent's work");
    expect(box.git(repo, ['status', '--porcelain'])).toBe('');
    expect(committed.report.blockers.map((b) => b.code)).toEqual(['unpushed_commits']);
    expect((await pushRepo(repo, deps)).report.ready).toBe(true);
  });

  it("commits and pushes as the user's own git would, the repository's hooks and filters included", async () => {
    const kit = hostileKit(box.root);
    box.commitFile(repo, '.gitattributes', HOSTILE_ATTRIBUTES);
    box.push(repo);
    kit.arm(repo);
    box.writeFile(repo, 'a.txt', 'a\n');
    expect((await commitAll(repo, 'Save', deps)).result).toMatchObject({ ok: true });
    expect((await pushRepo(repo, deps)).result).toMatchObject({ ok: true });
    expect(kit.fired()).toEqual(
      expect.arrayContaining(['clean', 'hook-commit-msg', 'hook-post-commit', 'hook-pre-commit', 'hook-pre-push']),
    );
    // The reads before and after the acts are Baton's own: the monitor and filters stay off for them.
    kit.clear();
    box.writeFile(repo, 'b.txt', 'b\n');
    expect((await pushRepo(repo, deps)).report.blockers.map((b) => b.code)).toEqual(['dirty_tree']);
    expect(kit.fired().filter((m) => !m.startsWith('hook-'))).toEqual([]);
  });

  it('refuses an empty message and changes nothing', async () => {
    box.writeFile(repo, 'README.md', 'edited\n');
    const before = box.head(repo);
    const { result, report } = await commitAll(repo, '   ', deps);
    expect(result).toMatchObject({ ok: false, code: 'empty_message' });
    expect(box.head(repo)).toBe(before);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('edited\n');
    expect(report.blockers.map((b) => b.code)).toEqual(['dirty_tree']);
  });

  it('refuses to commit when there is nothing to commit or a merge is in progress', async () => {
    expect((await commitAll(repo, 'msg', deps)).result).toMatchObject({ ok: false, code: 'nothing_to_commit' });
    box.startConflict(repo, 'merge');
    expect((await commitAll(repo, 'msg', deps)).result).toMatchObject({ ok: false, code: 'operation_in_progress' });
    expect(box.git(repo, ['rev-parse', '-q', '--verify', 'MERGE_HEAD'])).toMatch(/^[0-9a-f]{40}$/);
  });

  it('refuses to push a detached HEAD or a repository without remote, and re-evaluates the whole workspace', async () => {
    const other = box.clone(box.makeOrigin('lib'), 'lib');
    box.git(repo, ['checkout', '-q', '--detach']);
    const detached = await pushRepo(repo, deps, [repo, other]);
    expect(detached.result).toMatchObject({ ok: false, code: 'detached_head' });
    expect(detached.report.repos.map((r) => r.path)).toEqual([repo, other]);
    box.git(other, ['remote', 'remove', 'origin']);
    expect((await pushRepo(other, deps)).result).toMatchObject({ ok: false, code: 'no_remote' });
  });

  it("returns a rejected push as a value with git's reason", async () => {
    const other = box.clone(origin, 'other');
    box.commitFile(other, 'theirs.txt', 't');
    box.push(other);
    box.commitFile(repo, 'ours.txt', 'o');
    const { result } = await pushRepo(repo, deps);
    expect(result).toMatchObject({ ok: false, code: 'push_failed' });
  });
});
