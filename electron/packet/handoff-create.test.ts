import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { createExecGit } from './git-read.ts';
import { handoffCreate } from './handoff-create.ts';
import { parsePacket } from './packet-format.ts';

let sandbox: GitSandbox;
let origin: string;
let count = 0;
const clock = (iso: string) => () => new Date(iso);

/** A fresh clone on `feature/login` with two commits past origin/main. */
function featureRepo(): string {
  count += 1;
  const repo = sandbox.clone(origin, `repo-${count}`);
  sandbox.branchWithUpstream(repo, 'feature/login');
  sandbox.commitFile(repo, 'src/login.ts', 'export const login = 1;\n');
  sandbox.commitFile(repo, 'src/session.ts', 'export const session = 1;\n');
  return repo;
}

function deps(iso = '2026-11-30T00:00:00.000Z') {
  return { exec: createExecGit(sandbox.env), now: clock(iso) };
}

function frontmatter(repo: string, slug = 'feature-login'): Record<string, unknown> {
  const text = readFileSync(join(repo, 'docs/handoffs', `${slug}.md`), 'utf8');
  return parseYaml(text.split('---\n')[1]!) as Record<string, unknown>;
}

beforeAll(() => {
  sandbox = createGitSandbox('baton-packet-create-');
  origin = sandbox.makeOrigin('app');
});
afterAll(() => sandbox.cleanup());

describe('handoffCreate', () => {
  it('writes docs/handoffs/<branch with / as ->.md with git-read facts in the frontmatter', async () => {
    const repo = featureRepo();
    const result = await handoffCreate(repo, { goal: 'Add login' }, deps());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.slug).toBe('feature-login');
    expect(result.path).toBe('docs/handoffs/feature-login.md');
    expect(Object.keys(result)).toEqual(['ok', 'path', 'slug', 'packet', 'memory']);
    const front = frontmatter(repo);
    expect(Object.keys(front)).toEqual(['branch', 'head_sha', 'base_ref', 'merge_base', 'changed_files', 'created_at', 'provider']);
    expect(front).toEqual({
      branch: 'feature/login',
      head_sha: sandbox.head(repo),
      base_ref: 'origin/main',
      merge_base: sandbox.head(repo, 'origin/main'),
      changed_files: ['src/login.ts', 'src/session.ts'],
      created_at: '2026-11-30T00:00:00.000Z',
      provider: 'unspecified',
    });
    expect(result.packet.verified).toEqual(front);
  });

  it('records each prose field verbatim under asserted and in its own section, in fixed order', async () => {
    const repo = featureRepo();
    const args = {
      next_action: 'Wire the form\n\n## Goal (a line that looks like a heading)',
      goal: 'Add login',
      current_state: 'Form renders; submit is a stub.\n',
      acceptance_criteria: '- users can log in\n- bad passwords are refused',
      scope_assumptions: 'No SSO | no 2FA',
    };
    const result = await handoffCreate(repo, args, deps());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.packet.asserted).toEqual({ ...args, verification: [], extra_sections: {} });
    const text = readFileSync(join(repo, result.path), 'utf8');
    const titles = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(titles).toEqual(['Goal', 'Acceptance criteria', 'Scope assumptions', 'Current state', 'Next action']);
    const reparsed = parsePacket(text);
    expect(reparsed.ok && reparsed.packet.asserted).toEqual({ ...args, verification: [], extra_sections: {} });
  });

  it("lists a working tree's uncommitted files among its changed files and names them uncommitted, the packet file left out", async () => {
    const repo = featureRepo();
    await handoffCreate(repo, { goal: 'Add login' }, deps());
    writeFileSync(join(repo, 'src/login.ts'), 'export const login = 2; // not committed\n');
    writeFileSync(join(repo, 'carried.txt'), 'a new file, not committed\n');
    const result = await handoffCreate(repo, { goal: 'Add login' }, deps());
    const front = frontmatter(repo);
    expect(Object.keys(front).slice(4, 6)).toEqual(['changed_files', 'uncommitted_files']);
    expect(front).toMatchObject({
      changed_files: ['carried.txt', 'src/login.ts', 'src/session.ts'],
      uncommitted_files: ['carried.txt', 'src/login.ts'],
    });
    expect(result.ok && result.packet.verified.uncommitted_files).toEqual(['carried.txt', 'src/login.ts']);
    expect(parsePacket(readFileSync(join(repo, 'docs/handoffs/feature-login.md'), 'utf8'))).toMatchObject({
      ok: true,
      packet: { verified: { uncommitted_files: ['carried.txt', 'src/login.ts'] } },
    });
  });

  it('leaves out empty sections', async () => {
    const repo = featureRepo();
    const result = await handoffCreate(repo, { goal: 'Only a goal', current_state: '   ', verification: [] }, deps());
    expect(result.ok).toBe(true);
    const text = readFileSync(join(repo, 'docs/handoffs/feature-login.md'), 'utf8');
    expect([...text.matchAll(/^## (.+)$/gm)].map((m) => m[1])).toEqual(['Goal']);
  });

  it('stores every verification result as "not run", whatever the caller sends, as a claim | probe | result table', async () => {
    const repo = featureRepo();
    const result = await handoffCreate(
      repo,
      {
        verification: [
          { claim: 'tests pass', probe: 'npx vitest run', result: 'passed' },
          { claim: 'a | pipe', probe: 'echo "x\\y"' },
        ],
      },
      deps(),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.packet.asserted.verification).toEqual([
      { claim: 'tests pass', probe: 'npx vitest run', result: 'not run' },
      { claim: 'a | pipe', probe: 'echo "x\\y"', result: 'not run' },
    ]);
    const text = readFileSync(join(repo, result.path), 'utf8');
    expect(text).toContain('## Verification\n\n| claim | probe | result |\n| --- | --- | --- |\n| tests pass | npx vitest run | not run |');
    expect(text).not.toContain('passed');
    const reparsed = parsePacket(text);
    expect(reparsed.ok && reparsed.packet.asserted.verification).toEqual(result.packet.asserted.verification);
  });

  it('takes provider and base_ref from the caller, defaulting to "unspecified" and the default branch', async () => {
    const repo = featureRepo();
    sandbox.git(repo, ['branch', 'release', 'HEAD~1']);
    const result = await handoffCreate(repo, { provider: 'codex', base_ref: 'release' }, deps());
    expect(result.ok && result.packet.verified).toMatchObject({
      provider: 'codex',
      base_ref: 'release',
      merge_base: sandbox.head(repo, 'release'),
      changed_files: ['src/session.ts'],
    });
  });

  it("compares with the repository's own default branch when none is given: master, with or without origin/HEAD", async () => {
    const legacy = join(sandbox.root, 'origins', 'legacy.git');
    mkdirSync(legacy, { recursive: true });
    sandbox.git(legacy, ['init', '-q', '--bare', '--initial-branch=master']);
    const repo = sandbox.clone(legacy, 'legacy');
    sandbox.git(repo, ['switch', '-q', '-c', 'master']);
    sandbox.commitFile(repo, 'README.md', '# legacy\n');
    sandbox.git(repo, ['push', '-q', '-u', 'origin', 'master']);
    sandbox.git(repo, ['remote', 'set-head', 'origin', 'master']);
    const base = sandbox.head(repo);
    sandbox.branchWithUpstream(repo, 'feature/login');
    sandbox.commitFile(repo, 'src/login.ts', 'export const login = 1;\n');
    for (const withHead of [true, false]) {
      if (!withHead) sandbox.git(repo, ['remote', 'set-head', 'origin', '--delete']);
      const result = await handoffCreate(repo, { goal: 'Add login' }, deps());
      expect(result.ok && result.packet.verified, `origin/HEAD set: ${withHead}`).toEqual(
        expect.objectContaining({ base_ref: 'origin/master', merge_base: base, changed_files: ['src/login.ts'] }),
      );
      expect(result.ok && 'merge_base_error' in result.packet.verified).toBe(false);
    }
  });

  it('degrades truthfully when the base ref is missing: merge_base null, no files, a merge_base_error', async () => {
    const repo = featureRepo();
    const result = await handoffCreate(repo, { base_ref: 'origin/nope' }, deps());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.packet.verified.merge_base).toBeNull();
    expect(result.packet.verified.changed_files).toEqual([]);
    expect(result.packet.verified.merge_base_error).toMatch(/origin\/nope/);
    expect(frontmatter(repo)).toMatchObject({
      merge_base: null,
      changed_files: [],
      merge_base_error: expect.stringMatching(/origin\/nope/),
    });
  });

  it('overwrites in place and keeps the previous created_at as superseded_at', async () => {
    const repo = featureRepo();
    await handoffCreate(repo, { goal: 'first' }, deps('2026-11-01T10:00:00.000Z'));
    const second = await handoffCreate(repo, { goal: 'second' }, deps('2026-11-02T10:00:00.000Z'));
    expect(second.ok && second.packet.verified).toMatchObject({
      created_at: '2026-11-02T10:00:00.000Z',
      superseded_at: '2026-11-01T10:00:00.000Z',
    });
    const front = frontmatter(repo);
    expect(front.superseded_at).toBe('2026-11-01T10:00:00.000Z');
    expect(readFileSync(join(repo, 'docs/handoffs/feature-login.md'), 'utf8')).not.toContain('first');
  });

  it('keeps the sections a person added to the previous packet verbatim when it overwrites the known ones', async () => {
    const repo = featureRepo();
    await handoffCreate(repo, { goal: 'first', next_action: 'old step' }, deps('2026-11-01T10:00:00.000Z'));
    const file = join(repo, 'docs/handoffs/feature-login.md');
    const notes = 'Ask Dana before merging.\n\n- the flag stays off\n  ## an indented line';
    writeFileSync(file, readFileSync(file, 'utf8').replace('## Next action', `## Notes\n\n${notes}\n\n## Next action`));
    const second = await handoffCreate(repo, { goal: 'second', next_action: 'new step' }, deps('2026-11-02T10:00:00.000Z'));
    expect(second.ok && second.packet.asserted).toMatchObject({
      goal: 'second',
      next_action: 'new step',
      extra_sections: { Notes: notes },
    });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`## Notes\n\n${notes}\n`);
    expect(text).not.toContain('old step');
    const reread = parsePacket(text);
    expect(reread.ok && reread.packet.asserted).toMatchObject({
      goal: 'second',
      next_action: 'new step',
      extra_sections: { Notes: notes },
    });
  });

  it('counts the kept sections toward the packet cap and says so, keeping the previous packet', async () => {
    const repo = featureRepo();
    await handoffCreate(repo, { goal: 'kept' }, deps());
    const file = join(repo, 'docs/handoffs/feature-login.md');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n## Notes\n\n${'n'.repeat(7000)}\n`);
    const result = await handoffCreate(repo, { goal: 'g'.repeat(1500) }, deps());
    expect(result).toMatchObject({ ok: false, reason: 'packet_over_cap', limit: 8192, message: expect.stringContaining('Notes') });
    expect(readFileSync(file, 'utf8')).toContain('kept');
  });

  it('accepts a field of exactly 2048 bytes and refuses 2049 with field_over_cap, writing nothing', async () => {
    const repo = featureRepo();
    const atCap = await handoffCreate(repo, { goal: 'g'.repeat(2048) }, deps());
    expect(atCap.ok).toBe(true);
    rmSync(join(repo, 'docs'), { recursive: true });
    const over = await handoffCreate(repo, { goal: 'g'.repeat(2049) }, deps());
    expect(over).toMatchObject({ ok: false, reason: 'field_over_cap', field: 'goal', limit: 2048 });
    expect(existsSync(join(repo, 'docs'))).toBe(false);
  });

  it('counts the cap in UTF-8 bytes, not characters', async () => {
    const repo = featureRepo();
    const euro = '€'; // 3 bytes
    expect((await handoffCreate(repo, { next_action: euro.repeat(682) + 'xx' }, deps())).ok).toBe(true); // 2048 bytes
    const over = await handoffCreate(repo, { next_action: euro.repeat(683) }, deps()); // 683 chars, 2049 bytes
    expect(over).toMatchObject({ ok: false, reason: 'field_over_cap', field: 'next_action', limit: 2048 });
  });

  it('caps every caller field, verification cells included, and names the field', async () => {
    const repo = featureRepo();
    const big = 'x'.repeat(2049);
    for (const field of ['acceptance_criteria', 'scope_assumptions', 'current_state', 'provider', 'base_ref']) {
      expect(await handoffCreate(repo, { [field]: big }, deps())).toMatchObject({
        ok: false,
        reason: 'field_over_cap',
        field,
        limit: 2048,
      });
    }
    const row = await handoffCreate(
      repo,
      {
        verification: [
          { claim: 'ok', probe: 'ok' },
          { claim: 'ok', probe: big },
        ],
      },
      deps(),
    );
    expect(row).toMatchObject({ ok: false, reason: 'field_over_cap', field: 'verification[1].probe', limit: 2048 });
  });

  it('refuses a rendered packet over 8192 bytes with packet_over_cap and keeps the previous packet', async () => {
    const repo = featureRepo();
    await handoffCreate(repo, { goal: 'kept' }, deps());
    const field = 'y'.repeat(2000);
    const result = await handoffCreate(
      repo,
      { goal: field, acceptance_criteria: field, scope_assumptions: field, current_state: field, next_action: field },
      deps(),
    );
    expect(result).toMatchObject({ ok: false, reason: 'packet_over_cap', limit: 8192 });
    expect(readFileSync(join(repo, 'docs/handoffs/feature-login.md'), 'utf8')).toContain('kept');
  });

  it('refuses with git_read_failed outside a repository, on a detached HEAD and for a relative root', async () => {
    const plain = join(sandbox.root, `plain-${++count}`);
    mkdirSync(plain);
    expect(await handoffCreate(plain, { goal: 'x' }, deps())).toMatchObject({ ok: false, reason: 'git_read_failed' });
    const repo = featureRepo();
    sandbox.git(repo, ['checkout', '-q', '--detach']);
    expect(await handoffCreate(repo, { goal: 'x' }, deps())).toMatchObject({
      ok: false,
      reason: 'git_read_failed',
      message: expect.stringMatching(/detached/),
    });
    expect(await handoffCreate('relative/dir', { goal: 'x' }, deps())).toMatchObject({ ok: false, reason: 'git_read_failed' });
  });

  it('refuses with write_denied when the packet folder cannot be written or points outside the repo', async () => {
    const repo = featureRepo();
    mkdirSync(join(repo, 'docs'));
    writeFileSync(join(repo, 'docs/handoffs'), 'a file where the folder should be');
    expect(await handoffCreate(repo, { goal: 'x' }, deps())).toMatchObject({ ok: false, reason: 'write_denied' });
    const dirInTheWay = featureRepo();
    mkdirSync(join(dirInTheWay, 'docs/handoffs/feature-login.md'), { recursive: true });
    expect(await handoffCreate(dirInTheWay, { goal: 'x' }, deps())).toMatchObject({ ok: false, reason: 'write_denied' });
    const other = featureRepo();
    const outside = join(sandbox.root, `outside-${count}`);
    mkdirSync(outside);
    mkdirSync(join(other, 'docs'));
    symlinkSync(outside, join(other, 'docs/handoffs'));
    expect(await handoffCreate(other, { goal: 'x' }, deps())).toMatchObject({ ok: false, reason: 'write_denied' });
    expect(existsSync(join(outside, 'feature-login.md'))).toBe(false);
  });

  it('creates nothing outside the repository when docs/ leads out of it, and follows a link that stays inside', async () => {
    const linked = featureRepo();
    const outside = join(sandbox.root, `outside-${count}`);
    mkdirSync(outside);
    symlinkSync(outside, join(linked, 'docs'));
    expect(await handoffCreate(linked, { goal: 'x' }, deps())).toMatchObject({
      ok: false,
      reason: 'write_denied',
      message: 'docs points outside the repository',
    });
    expect(readdirSync(outside)).toEqual([]);
    const dangling = featureRepo();
    const gone = join(sandbox.root, `gone-${count}`);
    symlinkSync(gone, join(dangling, 'docs'));
    expect(await handoffCreate(dangling, { goal: 'x' }, deps())).toMatchObject({ ok: false, reason: 'write_denied' });
    expect(existsSync(gone)).toBe(false);
    const within = featureRepo();
    mkdirSync(join(within, 'notes'));
    symlinkSync(join(within, 'notes'), join(within, 'docs'));
    expect(await handoffCreate(within, { goal: 'x' }, deps())).toMatchObject({ ok: true });
    expect(existsSync(join(within, 'notes/handoffs/feature-login.md'))).toBe(true);
  });

  it('refuses malformed arguments as invalid_arguments', async () => {
    const repo = featureRepo();
    expect(await handoffCreate(repo, { goal: 42 }, deps())).toMatchObject({ ok: false, reason: 'invalid_arguments' });
    expect(await handoffCreate(repo, { verification: [{ claim: 'no probe' }] }, deps())).toMatchObject({
      ok: false,
      reason: 'invalid_arguments',
    });
  });

  it('reports memory as skipped with no_backend when no link is configured', async () => {
    const repo = featureRepo();
    const result = await handoffCreate(repo, { goal: 'x' }, deps());
    expect(result.ok && result.memory).toEqual({ status: 'skipped', reason: 'no_backend' });
  });

  it('writes the packet at the repository top level when root is a subfolder', async () => {
    const repo = featureRepo();
    mkdirSync(join(repo, 'src/deep'), { recursive: true });
    writeFileSync(join(repo, 'src/deep/.keep'), '');
    const result = await handoffCreate(join(repo, 'src/deep'), { goal: 'x' }, deps());
    expect(result.ok).toBe(true);
    expect(existsSync(join(repo, 'docs/handoffs/feature-login.md'))).toBe(true);
  });
});
