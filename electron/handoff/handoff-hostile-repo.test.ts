/**
 * Integration: a Move between two device processes through repositories whose own config and hooks
 * name a program for every way git can run one (dev-env/hostile-repo.ts), each leaving a marker,
 * with a submodule whose own config and hooks do the same, and a remote the target's clone sends to
 * a transport helper on PATH. Readiness, the source's checkpoint, the target's clone finder,
 * prepare, fetch and pin run none of them; the user's own Commit, asked for in the remediation,
 * runs the hooks and filters as git would.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_ATTRIBUTES, hostileKit, submoduleOrigin, type HostileKit } from '../../dev-env/hostile-repo.ts';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';

let world: TwoDevices;
let kitRoot: string;
let kit: HostileKit;

beforeAll(async () => {
  // The kit comes first: its transport helper must be on both devices' PATH.
  kitRoot = mkdtempSync(join(tmpdir(), 'baton-hostile-kit-'));
  kit = hostileKit(kitRoot);
  const env = { BATON_DEMO_TURN_MS: '200', PATH: `${kit.bin}:${process.env.PATH ?? ''}` };
  world = await startTwoDevices({ prefix: 'baton-hostile-', env });
}, 90_000);
afterAll(async () => {
  await world?.cleanup();
  rmSync(kitRoot, { recursive: true, force: true });
});

/** Makes each file's stat differ from the index, so a status read must pass it through its filter. */
function unsettle(repo: string, files: string[]): void {
  const past = new Date(Date.now() - 3600_000);
  for (const file of files) utimesSync(join(repo, file), past, past);
}

describe('a Move through repositories whose config would run code', () => {
  it('runs nothing of it on either device, while the user’s own Commit does', { timeout: 180_000 }, async () => {
    const { sandbox, repo, origin, laptop, desktop } = world;
    sandbox.commitFile(repo, '.gitattributes', HOSTILE_ATTRIBUTES);
    sandbox.addSubmodule(repo, 'vendor/lib', submoduleOrigin(sandbox, 'lib'));
    sandbox.push(repo);
    // The desktop's own clone of the origin (the clone finder takes it), and one of another remote beside it.
    const desktopClone = sandbox.clone(origin, join(desktop.workspaceRoot, 'app'));
    sandbox.git(desktopClone, ['-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '-q']);
    const stray = sandbox.clone(sandbox.makeOrigin('stray'), join(desktop.workspaceRoot, 'stray'));
    sandbox.branchWithUpstream(repo, 'feature/hostile');
    const commit = sandbox.commitFile(repo, 'src/work.txt', 'work\n');
    sandbox.push(repo);
    for (const armed of [repo, desktopClone, stray]) {
      kit.arm(armed);
      unsettle(armed, ['README.md']);
    }
    for (const armed of [repo, desktopClone]) {
      kit.armSubmodule(armed, 'vendor/lib');
      unsettle(join(armed, 'vendor/lib'), ['README.md', '.gitattributes']);
    }
    // For the first Move, the desktop's clone sends its remote to the transport helper.
    kit.armRemoteHelper(desktopClone, origin);
    kit.clear();

    const session = await startDemoSession(laptop, repo);
    await waitEligible(laptop, session.id, 'desktop');
    const desktopId = await deviceId(desktop);
    // A change inside the submodule blocks, listed under the submodule's path.
    sandbox.writeFile(repo, 'vendor/lib/draft.txt', 'draft\n');
    const blocked = await laptop.client.call('checkReadiness', { sessionId: session.id, targetDeviceId: desktopId });
    expect(blocked.ready).toBe(false);
    expect(blocked.blockers.find((b) => b.code === 'dirty_tree')).toMatchObject({
      details: { files: ['vendor/lib/draft.txt'], submodules: ['vendor/lib'] },
    });
    rmSync(join(repo, 'vendor/lib/draft.txt'));
    const report = await laptop.client.call('checkReadiness', { sessionId: session.id, targetDeviceId: desktopId });
    expect(report).toMatchObject({ ready: true, repos: [{ branch: 'feature/hostile', head: commit }] });
    expect(kit.fired()).toEqual([]);

    // The desktop's prepare refuses the helper's transport, saying which, and the Move ends there.
    const refused = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
    if (!refused.ok) throw new Error(`move refused: ${refused.code} ${refused.message}`);
    const ended = (d: { lastHandoff: { id: string; state: string } | null }) =>
      d.lastHandoff?.id === refused.value.handoffId && d.lastHandoff.state === 'cancelled';
    const onLaptop = await waitSession(laptop, session.id, 'the move to be refused at prepare', ended);
    expect(onLaptop.lastHandoff!.cancelReason).toMatchObject({ code: 'target_cannot_open_workspace' });
    expect(onLaptop.lastHandoff!.cancelReason!.message).toContain('transport "evil"');
    expect(kit.fired()).toEqual([]);
    sandbox.git(desktopClone, ['config', '--remove-section', `url.evil::${origin}`]);

    const moved = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
    expect(moved.ok).toBe(true);
    await waitSession(
      desktop,
      session.id,
      'the desktop to own the session',
      (d) => d.isOwner && d.lastHandoff?.state === 'completed',
      90_000,
    );
    const git = (args: string[]) =>
      execFileSync('git', args, { cwd: desktopClone, env: { ...world.env, GIT_OPTIONAL_LOCKS: '0' }, encoding: 'utf8' }).trim();
    expect(git(['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', 'rev-parse', 'HEAD', '--abbrev-ref', 'HEAD'])).toBe(
      `${commit}\nfeature/hostile`,
    );
    expect(kit.fired()).toEqual([]);

    // The user's own Commit, from the remediation on the desktop: as their git would, hooks and filters run.
    sandbox.writeFile(desktopClone, 'notes.txt', 'more\n');
    const committed = await desktop.client.call('commitAll', { sessionId: session.id, repo: desktopClone, message: 'Save the notes' });
    expect(committed.result).toEqual({ ok: true });
    expect(kit.fired()).toEqual(expect.arrayContaining(['fsmonitor', 'hook-pre-commit', 'hook-post-commit', 'included-clean']));
  });
});
