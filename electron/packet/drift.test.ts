import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { checkDrift } from './drift.ts';
import { readBranchFacts } from './git-facts.ts';
import { createExecGit, gitReader, type GitReader } from './git-read.ts';
import type { PacketFacts } from './packet-format.ts';

let sandbox: GitSandbox;
let origin: string;
let count = 0;
const CREATED = '2026-11-30T00:00:00.000Z';
const at = (iso: string) => ({ now: () => new Date(iso), packetPath: 'docs/handoffs/feature-login.md' });

/** A clone on feature/login, its reader, and the facts a packet would record now (base_ref `base`). */
async function setup(baseRef = 'origin/main'): Promise<{ repo: string; reader: GitReader; facts: PacketFacts }> {
  count += 1;
  const repo = sandbox.clone(origin, `repo-${count}`);
  sandbox.branchWithUpstream(repo, 'feature/login');
  sandbox.commitFile(repo, 'src/login.ts', 'v1\n');
  const reader = gitReader(repo, createExecGit(sandbox.env));
  const read = await readBranchFacts(reader, baseRef);
  if (!read.ok) throw new Error(read.message);
  const { toplevel: _toplevel, ...facts } = read.value;
  return { repo, reader, facts: { ...facts, created_at: CREATED, provider: 'unspecified' } };
}

beforeAll(() => {
  sandbox = createGitSandbox('baton-packet-drift-');
  origin = sandbox.makeOrigin('app');
});
afterAll(() => sandbox.cleanup());

describe('checkDrift', () => {
  it('reports nothing when the repository is as recorded', async () => {
    const { reader, facts } = await setup();
    expect(await checkDrift(reader, facts, at(CREATED))).toEqual([]);
  });

  it('reports branch_missing when the packet branch is gone', async () => {
    const { repo, reader, facts } = await setup();
    sandbox.git(repo, ['checkout', '-q', 'main']);
    sandbox.git(repo, ['branch', '-q', '-D', 'feature/login']);
    const warnings = await checkDrift(reader, facts, at(CREATED));
    expect(warnings).toEqual([{ code: 'branch_missing', detail: expect.stringContaining('feature/login') }]);
  });

  it('reports head_moved alone when a new commit touches only already-changed files', async () => {
    const { repo, reader, facts } = await setup();
    const moved = sandbox.commitFile(repo, 'src/login.ts', 'v2\n');
    expect(await checkDrift(reader, facts, at(CREATED))).toEqual([
      { code: 'head_moved', detail: `recorded ${facts.head_sha}, now ${moved}` },
    ]);
  });

  it('checks the branch tip, not HEAD, when another branch is checked out', async () => {
    const { repo, reader, facts } = await setup();
    sandbox.git(repo, ['checkout', '-q', 'main']);
    sandbox.commitFile(repo, 'other.txt', 'x\n');
    expect(await checkDrift(reader, facts, at(CREATED))).toEqual([]);
  });

  it('reports files_diverged when the diff set against the merge base changes', async () => {
    const { repo, reader, facts } = await setup();
    sandbox.commitFile(repo, 'src/extra.ts', 'x\n');
    const warnings = await checkDrift(reader, facts, at(CREATED));
    expect(warnings.map((w) => w.code)).toEqual(['head_moved', 'files_diverged']);
    expect(warnings[1]!.detail).toBe('now also changed: src/extra.ts');
  });

  it('reports files_diverged alone when the base moves so the merge base changes under the same HEAD', async () => {
    const { repo, reader, facts } = await setup('main');
    sandbox.git(repo, ['branch', '-f', 'main', 'feature/login']);
    const warnings = await checkDrift(reader, facts, at(CREATED));
    expect(warnings).toEqual([{ code: 'files_diverged', detail: 'no longer changed: src/login.ts' }]);
  });

  it('reports packet_stale_days with the age in days after 7 days, and not at exactly 7', async () => {
    const { reader, facts } = await setup();
    expect(await checkDrift(reader, facts, at('2026-12-07T00:00:00.000Z'))).toEqual([]);
    expect(await checkDrift(reader, facts, at('2026-12-08T12:00:00.000Z'))).toEqual([{ code: 'packet_stale_days', detail: 8 }]);
  });

  it('reads a naive created_at as UTC, whatever the local time zone', async () => {
    const { reader, facts } = await setup();
    const naive = { ...facts, created_at: '2026-11-20T00:00:00' };
    const tz = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(await checkDrift(reader, naive, at('2026-11-27T00:00:01.000Z'))).toEqual([{ code: 'packet_stale_days', detail: 7 }]);
      expect(await checkDrift(reader, naive, at('2026-11-26T23:59:59.000Z'))).toEqual([]);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('reports dirty_tree for uncommitted and untracked files, but not for the packet file itself', async () => {
    const { repo, reader, facts } = await setup();
    sandbox.writeFile(repo, 'docs/handoffs/feature-login.md', 'the packet\n');
    expect(await checkDrift(reader, facts, at(CREATED))).toEqual([]);
    writeFileSync(join(repo, 'src/login.ts'), 'edited\n');
    sandbox.writeFile(repo, 'notes.txt', 'new\n');
    expect(await checkDrift(reader, facts, at(CREATED))).toEqual([
      { code: 'dirty_tree', detail: '2 uncommitted: notes.txt, src/login.ts' },
    ]);
  });

  it('says the work arrived uncommitted when the packet recorded it so, and counts those files changed while they stay so', async () => {
    const { repo, reader } = await setup();
    writeFileSync(join(repo, 'src/login.ts'), 'edited, not committed\n');
    sandbox.writeFile(repo, 'carried.txt', 'new, not committed\n');
    const read = await readBranchFacts(reader, 'origin/main');
    if (!read.ok) throw new Error(read.message);
    const { toplevel: _toplevel, ...made } = read.value;
    const facts = { ...made, created_at: CREATED, provider: 'unspecified' };
    expect(facts).toMatchObject({ changed_files: ['carried.txt', 'src/login.ts'], uncommitted_files: ['carried.txt', 'src/login.ts'] });
    expect(await checkDrift(reader, facts, at(CREATED))).toEqual([
      { code: 'dirty_tree', detail: '2 uncommitted: carried.txt, src/login.ts (the work arrived uncommitted, as the packet recorded it)' },
    ]);
    // Committed since: still changed, no longer uncommitted.
    sandbox.git(repo, ['add', 'carried.txt']);
    sandbox.git(repo, ['commit', '-q', '-m', 'Commit the carried file']);
    const warnings = await checkDrift(reader, facts, at(CREATED));
    expect(warnings.map((w) => w.code)).toEqual(['head_moved', 'dirty_tree']);
    expect(warnings[1]?.detail).toBe('1 uncommitted: src/login.ts (the work arrived uncommitted, as the packet recorded it)');
    // Undone: no longer changed; a new uncommitted file is dirt the packet did not record.
    sandbox.git(repo, ['checkout', '-q', '--', 'src/login.ts']);
    sandbox.writeFile(repo, 'other.txt', 'x\n');
    const undone = await checkDrift(reader, { ...facts, head_sha: sandbox.head(repo) }, at(CREATED));
    expect(undone).toEqual([{ code: 'dirty_tree', detail: '1 uncommitted: other.txt' }]);
  });

  it('skips the file check when neither the base ref nor the recorded merge base can be read', async () => {
    const { reader, facts } = await setup('origin/missing');
    expect(facts.merge_base).toBeNull();
    expect(await checkDrift(reader, facts, at(CREATED))).toEqual([]);
  });
});
