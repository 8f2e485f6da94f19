import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { buildCheckpointPacket, checkPacketDrift, createCheckpointPacketPort } from './checkpoint-packet.ts';
import { createExecGit, type GitExec } from './git-read.ts';

let sandbox: GitSandbox;
let origin: string;
let source: string;

beforeAll(() => {
  sandbox = createGitSandbox('baton-packet-checkpoint-');
  origin = sandbox.makeOrigin('app');
  source = sandbox.clone(origin, 'source');
  sandbox.branchWithUpstream(source, 'feature/move');
  sandbox.commitFile(source, 'src/move.ts', 'v1\n');
  sandbox.push(source);
});
afterAll(() => sandbox.cleanup());

const options = () => ({ exec: createExecGit(sandbox.env), now: () => Date.UTC(2026, 10, 30) });

/** The real executor, recording the subcommand of every git process it starts. */
function recordingExec(): { exec: GitExec; subcommands: string[] } {
  const real = createExecGit(sandbox.env);
  const subcommands: string[] = [];
  return {
    subcommands,
    exec: (args, cwd) => {
      subcommands.push(args.find((a) => !a.startsWith('-')) ?? '');
      return real(args, cwd);
    },
  };
}

describe('checkpoint packets', () => {
  it('builds the packet from git at checkpoint time plus the session prose, without writing to the repo', async () => {
    const built = await buildCheckpointPacket(
      source,
      { goal: 'Move it', current_state: 'half done', next_action: 'finish' },
      { ...options(), provider: 'demo' },
    );
    expect(built).toEqual({
      ok: true,
      packet: {
        slug: 'feature-move',
        path: 'docs/handoffs/feature-move.md',
        verified: {
          branch: 'feature/move',
          head_sha: sandbox.head(source),
          base_ref: 'origin/main',
          merge_base: sandbox.head(source, 'origin/main'),
          changed_files: ['src/move.ts'],
          created_at: '2026-11-30T00:00:00.000Z',
          provider: 'demo',
        },
        asserted: {
          goal: 'Move it',
          acceptance_criteria: '',
          scope_assumptions: '',
          current_state: 'half done',
          next_action: 'finish',
          verification: [],
          extra_sections: {},
        },
      },
    });
    expect(existsSync(join(source, 'docs'))).toBe(false);
    expect(sandbox.git(source, ['status', '--porcelain'])).toBe('');
  });

  it('finds no drift on a target clone pinned at the same commit, and head_moved once it moves', async () => {
    const built = await buildCheckpointPacket(source, { goal: 'g' }, options());
    if (!built.ok) throw new Error(built.message);
    const target = sandbox.clone(origin, 'target');
    sandbox.git(target, ['checkout', '-q', 'feature/move']);
    expect(await checkPacketDrift(built.packet, target, () => Date.UTC(2026, 10, 30), createExecGit(sandbox.env))).toEqual([]);
    sandbox.commitFile(target, 'src/move.ts', 'v2\n');
    const warnings = await checkPacketDrift(built.packet, target, () => new Date('2026-12-09T00:00:00Z'), createExecGit(sandbox.env));
    expect(warnings.map((w) => w.code)).toEqual(['head_moved', 'packet_stale_days']);
  });

  it('reports branch_missing for a repository path it cannot read', async () => {
    const built = await buildCheckpointPacket(source, {}, options());
    if (!built.ok) throw new Error(built.message);
    expect(await checkPacketDrift(built.packet, join(sandbox.root, 'gone'))).toEqual([
      { code: 'branch_missing', detail: expect.stringContaining('cannot read') },
    ]);
  });

  it('refuses to build on a detached HEAD with git_read_failed', async () => {
    const detached = sandbox.clone(origin, 'detached');
    sandbox.git(detached, ['checkout', '-q', '--detach']);
    expect(await buildCheckpointPacket(detached, {}, options())).toMatchObject({ ok: false, reason: 'git_read_failed' });
  });

  it('gives the runtime a port: build throws on failure, drift rejects a packet that is not one', async () => {
    const port = createCheckpointPacketPort(options());
    const packet = await port.build(source, { goal: 'g', currentState: 'c', nextAction: 'n' }, 'claude');
    expect(packet).toMatchObject({ verified: { provider: 'claude' }, asserted: { goal: 'g', current_state: 'c', next_action: 'n' } });
    expect(await port.drift(packet, source)).toEqual([]);
    expect(await port.drift({ verified: { branch: 'x' } }, source)).toEqual([{ code: 'packet_unreadable', detail: expect.any(String) }]);
    await expect(port.build(join(sandbox.root, 'nope'), { goal: '', currentState: '', nextAction: '' }, 'x')).rejects.toThrow();
  });

  it('builds from what the caller already read: only what it did not read is asked of git, and the packet is the same', async () => {
    const { exec, subcommands } = recordingExec();
    const port = createCheckpointPacketPort({ ...options(), exec });
    const prose = { goal: 'g', currentState: 'c', nextAction: 'n' };
    const fresh = await port.build(source, prose, 'demo');
    // Two reads find the base (the upstream's remote, where its HEAD points), seven read the facts.
    expect(subcommands).toHaveLength(9);
    expect(subcommands).toContain('status');
    subcommands.length = 0;
    const known = {
      branch: 'feature/move',
      head: sandbox.head(source),
      base: { ref: 'origin/main', mergeBase: sandbox.head(source, 'origin/main') },
      uncommitted: [],
    };
    expect(await port.build(source, prose, 'demo', known)).toEqual(fresh);
    expect(subcommands).toEqual(['diff']);
    subcommands.length = 0;
    const withFiles = { ...known, base: { ...known.base, changedFiles: ['src/move.ts'] } };
    expect(await port.build(source, prose, 'demo', withFiles)).toEqual(fresh);
    expect(subcommands).toEqual([]);
  });

  it("takes the base the device read whatever its name (a master repository's origin/master), asking git nothing of it", async () => {
    const { exec, subcommands } = recordingExec();
    const port = createCheckpointPacketPort({ ...options(), exec });
    sandbox.git(source, ['branch', '-f', 'trunk', 'origin/main']);
    const known = {
      branch: 'feature/move',
      head: sandbox.head(source),
      base: { ref: 'trunk', mergeBase: sandbox.head(source, 'trunk'), changedFiles: ['src/move.ts'] },
      uncommitted: [],
    };
    const packet = await port.build(source, { goal: 'g', currentState: 'c', nextAction: 'n' }, 'demo', known);
    expect(packet.verified).toMatchObject({ base_ref: 'trunk', merge_base: sandbox.head(source, 'trunk'), changed_files: ['src/move.ts'] });
    expect(packet.verified).not.toHaveProperty('merge_base_error');
    expect(subcommands).toEqual([]);
  });

  it('checks drift on a freshly pinned clone with one merge-base read, taking branch, HEAD and dirt from the pin', async () => {
    const built = await buildCheckpointPacket(source, { goal: 'g' }, options());
    if (!built.ok) throw new Error(built.message);
    const target = sandbox.clone(origin, 'pinned');
    sandbox.git(target, ['checkout', '-q', 'feature/move']);
    const { exec, subcommands } = recordingExec();
    const port = createCheckpointPacketPort({ ...options(), exec });
    const checkedOut = { branch: 'feature/move', head: sandbox.head(target), dirty: ['scratch.txt'] };
    expect(await port.drift(built.packet, target, checkedOut)).toEqual([{ code: 'dirty_tree', detail: '1 uncommitted: scratch.txt' }]);
    expect(subcommands).toEqual(['merge-base']);
  });

  it('asks git nothing when the pin knows the base ref points at the pinned commit (its own merge base, nothing changed)', async () => {
    const onMain = sandbox.clone(origin, 'source-main');
    const built = await buildCheckpointPacket(onMain, { goal: 'g' }, options());
    if (!built.ok) throw new Error(built.message);
    expect(built.packet.verified).toMatchObject({ base_ref: 'origin/main', merge_base: sandbox.head(onMain), changed_files: [] });
    const target = sandbox.clone(origin, 'pinned-main');
    const { exec, subcommands } = recordingExec();
    const port = createCheckpointPacketPort({ ...options(), exec });
    const head = sandbox.head(target);
    const checkedOut = { branch: 'main', head, dirty: [], remoteTip: { ref: 'origin/main', commit: head } };
    expect(await port.drift(built.packet, target, checkedOut)).toEqual([]);
    expect(subcommands).toEqual([]);
    // Without what the pin knows, the merge base is asked of git.
    expect(await port.drift(built.packet, target, { branch: 'main', head, dirty: [] })).toEqual([]);
    expect(subcommands).toEqual(['merge-base']);
  });
});
