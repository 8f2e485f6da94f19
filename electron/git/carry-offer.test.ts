import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitUnpushed, makeEveryKindOfChange, seedCarryRepo } from '../../dev-env/carry-fixtures.ts';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { createGitRunner, type GitRunner } from './git-runner.ts';
import { evaluateSourceReadiness } from './readiness.ts';
import { looksSecret } from './secret-paths.ts';

let box: GitSandbox;
let run: GitRunner;
let origin: string;
let repo: string;

beforeEach(() => {
  box = createGitSandbox();
  run = createGitRunner({ env: box.env });
  origin = box.makeOrigin('app');
  repo = box.clone(origin, 'app');
  seedCarryRepo(box, repo);
});
afterEach(() => box.cleanup());

const evaluate = () => evaluateSourceReadiness([repo], { run });

describe('what Carry my changes would take', () => {
  it('offers the uncommitted files and unpushed commits readiness blocks on, counted by kind, ', async () => {
    commitUnpushed(box, repo);
    makeEveryKindOfChange(box, repo);
    const report = await evaluate();
    expect(report.blockers.map((b) => [b.code, b.carryable])).toEqual([
      ['dirty_tree', true],
      ['unpushed_commits', true],
    ]);
    // Changed: app.ts, staged-then-edited.txt, the rename, run.sh's mode; new: staged-new.ts, the link, blob.bin, the untracked note;
    // deleted: gone.md (staged) and unstaged-gone.md.
    expect(report.carry).toMatchObject({ changed: 4, added: 4, deleted: 2, commits: 1, secretFiles: [], repos: [repo] });
    expect(report.carry?.estimatedBytes).toBeGreaterThan(0);
    expect(report.carry?.largest[0]).toMatchObject({ path: expect.stringMatching(/^app\//) });
  });

  it('lists files that look like secrets by name, and never what .gitignore excludes', async () => {
    box.writeFile(repo, '.env', 'TOKEN=1\n');
    box.writeFile(repo, 'keys/id_ed25519', 'private\n');
    box.writeFile(repo, 'keys/id_ed25519.pub', 'public\n');
    box.writeFile(repo, 'secret.log', 'ignored\n');
    const { carry } = await evaluate();
    expect(carry?.secretFiles).toEqual(['app/.env', 'app/keys/id_ed25519']);
    expect(carry?.added).toBe(3);
  });

  it('offers nothing where carrying cannot help: a branch behind its upstream, or one with no upstream', async () => {
    box.writeFile(repo, 'src/app.ts', 'edited\n');
    const other = box.clone(origin, 'other');
    box.commitFile(other, 'other.txt', 'x\n');
    box.push(other);
    box.git(repo, ['fetch', '-q']);
    commitUnpushed(box, repo);
    const diverged = await evaluate();
    expect(diverged.carry).toBeUndefined();
    expect(diverged.blockers.every((b) => b.carryable === undefined)).toBe(true);
    box.git(repo, ['checkout', '-q', '-b', 'local-only']);
    expect((await evaluate()).carry).toBeUndefined();
  });

  it('offers nothing for a repository mid-merge, and blocks it with its fix as before', async () => {
    box.writeFile(repo, 'notes.txt', 'uncommitted\n');
    box.startConflict(repo, 'merge');
    const report = await evaluate();
    expect(report.carry).toBeUndefined();
    expect(report.blockers.map((b) => b.code)).toContain('operation_in_progress');
    expect(report.blockers.every((b) => b.carryable === undefined)).toBe(true);
  });

  it('offers nothing when a submodule has changes inside, which block with their fix', async () => {
    const lib = box.addSubmodule(repo, 'lib', box.makeOrigin('lib'));
    box.push(repo);
    box.writeFile(repo, 'src/app.ts', 'edited\n');
    box.writeFile(lib, 'inside.txt', 'a change inside the submodule\n');
    const report = await evaluate();
    expect(report.carry).toBeUndefined();
    expect(report.blockers.map((b) => b.code)).toContain('dirty_tree');
    expect(report.blockers.every((b) => b.carryable === undefined)).toBe(true);
  });

  it('names secret-looking files by their last part, whatever their folder or case', () => {
    for (const path of [
      '.env',
      'config/.env.local',
      'prod.env',
      'deploy/ID_RSA',
      'tls/server.pem',
      'a/b.key',
      '.npmrc',
      'x/credentials.json',
    ])
      expect(looksSecret(path), path).toBe(true);
    for (const path of ['src/env.ts', 'keys/id_rsa.pub', 'README.md', 'docs/keys.md', 'environment.md'])
      expect(looksSecret(path), path).toBe(false);
  });
});
