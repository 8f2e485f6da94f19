/**
 * A session's permission level against a real backend process: chosen at start, it is stored on the
 * session, sealed in its metadata (another device learns it from there), and every provider made
 * for the session (at start, after a restart) is made with it, asking for what it does not allow.
 * A level for a provider without levels is refused and creates nothing.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderId, SessionSettings } from '../../../shared/provider.ts';
import { startEnrollmentWorld, firstDevice, joinedDevice, type EnrollmentWorld } from '../../../dev-env/enrollment-fixture.ts';
import { createGitSandbox, type GitSandbox } from '../../../dev-env/git-sandbox.ts';
import { waitFor } from '../../../dev-env/process-harness.ts';
import { sessionServiceOf } from '../../../dev-env/session-services.ts';
import type { Profile } from '../../enrollment/profile.ts';
import { DemoAgent } from '../../providers/demo-agent.ts';
import { providerPort } from '../adapters/provider-port.ts';

let world: EnrollmentWorld;
let sandbox: GitSandbox;
let laptop: Profile;
let desktop: Profile;

beforeAll(async () => {
  world = await startEnrollmentWorld();
  sandbox = createGitSandbox('baton-permission-');
  laptop = await firstDevice(world, 'laptop');
  desktop = await joinedDevice(world, laptop, 'desktop');
}, 90_000);

afterAll(async () => {
  await world?.close();
  sandbox?.cleanup();
});

/** A session service of `profile` whose providers (demo agents) are recorded with the settings they were made with. */
function service(profile: Profile, stateDir: string, made: { id: ProviderId; settings: SessionSettings }[]) {
  return sessionServiceOf(profile, {
    backendUrl: world.backendUrl,
    stateDir: join(sandbox.root, stateDir),
    gitEnv: sandbox.env,
    providers: providerPort({
      detect: async () => [],
      create: (id, settings) => {
        made.push({ id, settings });
        return new DemoAgent({ turnMs: 30, permission: settings.permission });
      },
    }),
  });
}

describe("a session's permission level", () => {
  it('is stored, sealed in the metadata another device reads, and every provider of the session is made with it', async () => {
    const repo = sandbox.clone(sandbox.makeOrigin('perm'), 'perm');
    const made: { id: ProviderId; settings: SessionSettings }[] = [];
    const owner = service(laptop, 'laptop-state', made);
    const started = await owner.sessions.start({ workspace: repo, provider: 'demo', prompt: 'edit a file', permission: 'ask' });
    if (!started.ok) throw new Error(started.message);
    const id = started.value.id;
    expect(owner.state.session(id)?.permission).toBe('ask');
    expect(made).toEqual([{ id: 'demo', settings: { permission: 'ask' } }]);
    // The provider runs at that level: the demo agent asks before the edit it was asked for.
    const asked = await waitFor('the request to edit', async () => owner.state.session(id)?.permissions.pending[0]);
    expect(asked).toMatchObject({ tool: 'Edit', generation: 1 });

    // Another device learns the level from the sealed metadata alone.
    const other = service(desktop, 'desktop-state', []);
    const record = await other.client.call('getSession', { params: { sessionId: id } });
    if (!record.ok) throw new Error(record.message);
    await other.sessions.applyRemote(record.value.session);
    expect(other.state.session(id)?.permission).toBe('ask');

    // A restart of the owner makes its provider with the same level again.
    await owner.sessions.stopAll();
    await owner.state.settled(true);
    const restarted = service(laptop, 'laptop-state', made);
    await restarted.sessions.resumeOwned();
    expect(made.map((m) => m.settings.permission)).toEqual(['ask', 'ask']);
    await restarted.sessions.stopAll();
  }, 60_000);

  it('defaults to editing in the workspace when none is chosen', async () => {
    const repo = sandbox.clone(sandbox.makeOrigin('perm-default'), 'perm-default');
    const made: { id: ProviderId; settings: SessionSettings }[] = [];
    const owner = service(laptop, 'default-state', made);
    const started = await owner.sessions.start({ workspace: repo, provider: 'demo', prompt: 'hello' });
    if (!started.ok) throw new Error(started.message);
    expect(started.value.permission).toBe('workspace');
    expect(made).toEqual([{ id: 'demo', settings: { permission: 'workspace' } }]);
    await owner.sessions.stopAll();
  }, 60_000);

  it('is refused for a provider without levels (the command agent), and nothing is created', async () => {
    const repo = sandbox.clone(sandbox.makeOrigin('perm-command'), 'perm-command');
    const made: { id: ProviderId; settings: SessionSettings }[] = [];
    const owner = service(laptop, 'command-state', made);
    const before = await owner.client.call('listSessions', {});
    const refused = await owner.sessions.start({ workspace: repo, provider: 'command', prompt: 'x', permission: 'full' });
    expect(refused).toMatchObject({ ok: false, code: 'invalid_argument', message: 'Command-line agent has no permission levels.' });
    expect(made).toEqual([]);
    expect(owner.state.listSessions()).toEqual([]);
    const after = await owner.client.call('listSessions', {});
    expect(after.ok && before.ok && after.value.sessions.length).toBe(before.ok ? before.value.sessions.length : -1);
  }, 60_000);
});
