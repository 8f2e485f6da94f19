/**
 * Integration: a Move between two device processes through repositories whose own config and hooks
 * name a program for every way git can run one (dev-env/hostile-repo.ts), each leaving a marker.
 * Readiness, the source's checkpoint, the target's clone finder, prepare, fetch and pin run none of
 * them; the user's own Commit, asked for in the remediation, runs the hooks and filters as git would.
 */
import { execFileSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_ATTRIBUTES, hostileKit } from '../../dev-env/hostile-repo.ts';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';

let world: TwoDevices;

beforeAll(async () => {
  world = await startTwoDevices({ prefix: 'baton-hostile-', env: { BATON_DEMO_TURN_MS: '200' } });
}, 90_000);
afterAll(async () => {
  await world?.cleanup();
});

/** Makes each file's stat differ from the index, so a status read must pass it through its filter. */
function unsettle(repo: string, files: string[]): void {
  const past = new Date(Date.now() - 3600_000);
  for (const file of files) utimesSync(join(repo, file), past, past);
}

describe('a Move through repositories whose config would run code', () => {
  it('runs nothing of it on either device, while the user’s own Commit does', { timeout: 180_000 }, async () => {
    const { sandbox, repo, origin, laptop, desktop } = world;
    const kit = hostileKit(sandbox.root);
    sandbox.commitFile(repo, '.gitattributes', HOSTILE_ATTRIBUTES);
    sandbox.push(repo);
    // The desktop's own clone of the origin (the clone finder takes it), and one of another remote beside it.
    const desktopClone = sandbox.clone(origin, join(desktop.workspaceRoot, 'app'));
    const stray = sandbox.clone(sandbox.makeOrigin('stray'), join(desktop.workspaceRoot, 'stray'));
    sandbox.branchWithUpstream(repo, 'feature/hostile');
    const commit = sandbox.commitFile(repo, 'src/work.txt', 'work\n');
    sandbox.push(repo);
    for (const armed of [repo, desktopClone, stray]) {
      kit.arm(armed);
      unsettle(armed, ['README.md']);
    }
    kit.clear();

    const session = await startDemoSession(laptop, repo);
    await waitEligible(laptop, session.id, 'desktop');
    const desktopId = await deviceId(desktop);
    const report = await laptop.client.call('checkReadiness', { sessionId: session.id, targetDeviceId: desktopId });
    expect(report).toMatchObject({ ready: true, repos: [{ branch: 'feature/hostile', head: commit }] });
    expect(kit.fired()).toEqual([]);

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
