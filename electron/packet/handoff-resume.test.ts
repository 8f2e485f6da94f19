import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { createExecGit } from './git-read.ts';
import { handoffCreate } from './handoff-create.ts';
import { handoffResume } from './handoff-resume.ts';

let sandbox: GitSandbox;
let origin: string;
let count = 0;

function featureRepo(branch = 'feature/login'): string {
  count += 1;
  const repo = sandbox.clone(origin, `repo-${count}`);
  sandbox.branchWithUpstream(repo, branch);
  sandbox.commitFile(repo, 'src/login.ts', 'export const login = 1;\n');
  return repo;
}

const deps = (iso = '2026-11-30T00:00:00.000Z') => ({ exec: createExecGit(sandbox.env), now: () => new Date(iso) });

/** Every file under `dir` (the .git folder included) with its size, mtime and content hash. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const info = statSync(path);
        out[relative(dir, path)] = `${info.size}:${info.mtimeMs}:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
      }
    }
  };
  walk(dir);
  return out;
}

beforeAll(() => {
  sandbox = createGitSandbox('baton-packet-resume-');
  origin = sandbox.makeOrigin('app');
});
afterAll(() => sandbox.cleanup());

describe('handoffResume', () => {
  it('reports ok, slug, path, verified, warnings, asserted, memory in that order for the current branch', async () => {
    const repo = featureRepo();
    const created = await handoffCreate(repo, { goal: 'Add login', verification: [{ claim: 'tests pass', probe: 'npm test' }] }, deps());
    expect(created.ok).toBe(true);
    const result = await handoffResume(repo, {}, deps('2026-11-30T01:00:00.000Z'));
    expect(Object.keys(result)).toEqual(['ok', 'slug', 'path', 'verified', 'warnings', 'asserted', 'memory']);
    expect(result).toMatchObject({
      ok: true,
      slug: 'feature-login',
      path: 'docs/handoffs/feature-login.md',
      verified: { branch: 'feature/login', head_sha: sandbox.head(repo), changed_files: ['src/login.ts'] },
      asserted: { goal: 'Add login', verification: [{ claim: 'tests pass', probe: 'npm test', result: 'not run' }] },
      memory: { status: 'skipped', reason: 'no_backend' },
    });
    // The untracked packet file itself does not make the tree dirty.
    expect(result.ok && result.warnings).toEqual([]);
  });

  it('resumes another branch by slug from wherever HEAD is', async () => {
    const repo = featureRepo('team/a/task');
    await handoffCreate(repo, { goal: 'nested' }, deps());
    sandbox.git(repo, ['add', 'docs']);
    sandbox.git(repo, ['commit', '-q', '-m', 'packet']);
    sandbox.git(repo, ['checkout', '-q', 'main']);
    const result = await handoffResume(repo, { slug: 'team-a-task' }, deps());
    expect(result).toMatchObject({ ok: false, reason: 'packet_not_found' }); // the packet lives on its branch, not on main
    sandbox.git(repo, ['checkout', '-q', 'team/a/task']);
    const back = await handoffResume(repo, { slug: 'team-a-task' }, deps());
    expect(back).toMatchObject({ ok: true, slug: 'team-a-task', asserted: { goal: 'nested' } });
  });

  it('surfaces a section a person added untouched in asserted.extra_sections, with the known sections unchanged', async () => {
    const repo = featureRepo();
    await handoffCreate(repo, { goal: 'Add login', current_state: 'Half done', next_action: 'Write the test' }, deps());
    const file = join(repo, 'docs/handoffs/feature-login.md');
    const notes = 'Ask Dana before merging.\n\n| owner | date |\n| --- | --- |\n| dana | friday |';
    const edited = readFileSync(file, 'utf8').replace('## Next action', `## Notes\n\n${notes}\n\n## Next action`);
    writeFileSync(file, `${edited}\n## Links\n\nhttps://example.invalid/ticket/1\n`);
    const result = await handoffResume(repo, {}, deps());
    if (!result.ok) throw new Error(result.message);
    expect(result.asserted).toEqual({
      goal: 'Add login',
      acceptance_criteria: '',
      scope_assumptions: '',
      current_state: 'Half done',
      next_action: 'Write the test',
      verification: [],
      extra_sections: { Notes: notes, Links: 'https://example.invalid/ticket/1' },
    });
    expect(Object.keys(result.asserted.extra_sections)).toEqual(['Notes', 'Links']);
    expect(readFileSync(file, 'utf8')).toBe(`${edited}\n## Links\n\nhttps://example.invalid/ticket/1\n`);
  });

  it('refuses traversal, separators, dot-names and empty slugs as invalid_slug', async () => {
    const repo = featureRepo();
    for (const slug of ['../x', 'a/b', '..', '.hidden', '', 'a\\b', 'x..y']) {
      expect(await handoffResume(repo, { slug }, deps())).toMatchObject({ ok: false, reason: 'invalid_slug' });
    }
  });

  it('refuses an absent packet with packet_not_found', async () => {
    const repo = featureRepo();
    expect(await handoffResume(repo, {}, deps())).toMatchObject({ ok: false, reason: 'packet_not_found', slug: 'feature-login' });
    expect(await handoffResume(repo, { slug: 'no-such-branch' }, deps())).toMatchObject({ ok: false, reason: 'packet_not_found' });
  });

  it('refuses a file without valid frontmatter with packet_unreadable', async () => {
    const repo = featureRepo();
    mkdirSync(join(repo, 'docs/handoffs'), { recursive: true });
    writeFileSync(join(repo, 'docs/handoffs/no-front.md'), '# just notes\n');
    writeFileSync(join(repo, 'docs/handoffs/bad-yaml.md'), '---\nbranch: [unclosed\n---\n');
    writeFileSync(join(repo, 'docs/handoffs/missing-sha.md'), '---\nbranch: x\n---\n');
    for (const slug of ['no-front', 'bad-yaml', 'missing-sha']) {
      expect(await handoffResume(repo, { slug }, deps())).toMatchObject({ ok: false, reason: 'packet_unreadable' });
    }
  });

  it('on a detached HEAD without a slug refuses with invalid_slug and asks for one', async () => {
    const repo = featureRepo();
    sandbox.git(repo, ['checkout', '-q', '--detach']);
    expect(await handoffResume(repo, {}, deps())).toMatchObject({
      ok: false,
      reason: 'invalid_slug',
      message: expect.stringMatching(/detached/),
    });
  });

  it('writes nothing: working tree, index and .git are byte-for-byte unchanged, even when dirty', async () => {
    const repo = featureRepo();
    await handoffCreate(repo, { goal: 'x' }, deps());
    sandbox.commitFile(repo, 'src/after.ts', 'moved on\n');
    writeFileSync(join(repo, 'src/login.ts'), 'edited, not staged\n');
    writeFileSync(join(repo, 'untracked.txt'), 'new\n');
    // Make the index's stat cache stale, which a plain `git status` would refresh and rewrite.
    const touched = new Date(Date.now() + 5000);
    const { utimesSync } = await import('node:fs');
    utimesSync(join(repo, 'README.md'), touched, touched);
    const before = snapshot(repo);
    const result = await handoffResume(repo, {}, deps('2026-12-30T00:00:00.000Z'));
    expect(result.ok && result.warnings.map((w) => w.code)).toEqual(['head_moved', 'files_diverged', 'packet_stale_days', 'dirty_tree']);
    expect(snapshot(repo)).toEqual(before);
  });
});
