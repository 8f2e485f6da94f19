/**
 * The session service against a real backend process: the owner's appends are fenced by its
 * generation, and a device that gets `stale_generation` stops driving the session at once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../test-support/git-repos.ts';
import { createAccount } from '../enrollment/account.ts';
import { approvePendingJoins, createInvite } from '../enrollment/invites.ts';
import { requestJoin } from '../enrollment/join.ts';
import type { Profile } from '../enrollment/profile.ts';
import { syncEnrollmentBackend, syncEnrollmentBackendFactory } from '../enrollment/sync-backend.ts';
import { createGitRunner } from '../git/git-runner.ts';
import { DemoAgent } from '../providers/demo-agent.ts';
import { createBackendClient, type BackendClient } from '../sync/backend-client.ts';
import { gitPort } from './compose.ts';
import { LocalState } from './local-state.ts';
import { startBaton, waitFor, type RunningProcess } from './process-harness.ts';
import { profileSeal } from './profile-seal.ts';
import { providerPort } from './provider-port.ts';
import { SessionService } from './session-service.ts';
import { syncBackend } from './sync-backend.ts';

let sandbox: GitSandbox;
let backend: RunningProcess;
let laptop: Profile;
let desktop: Profile;
let laptopClient: BackendClient;
let desktopClient: BackendClient;

beforeAll(async () => {
  sandbox = createGitSandbox('baton-session-service-');
  backend = await startBaton(['backend', '--data', join(sandbox.root, 'data'), '--port', '0'], 'backend: ', sandbox.env);
  const deps = { backend: syncEnrollmentBackendFactory };
  const created = await createAccount(join(sandbox.root, 'laptop'), backend.url, 'laptop', deps);
  if (!created.ok) throw new Error(created.message);
  laptop = created.value;
  laptopClient = createBackendClient({ baseUrl: backend.url, signer: laptop.identity });
  const invite = await createInvite(laptop, syncEnrollmentBackend(laptopClient));
  if (!invite.ok) throw new Error(invite.message);
  const joining = requestJoin(join(sandbox.root, 'desktop'), invite.value.line, 'desktop', deps, { pollMs: 100 });
  let joined: Awaited<typeof joining> | null = null;
  void joining.then((result) => { joined = result; });
  await waitFor('the join to be approved', async () => {
    await approvePendingJoins(laptop, syncEnrollmentBackend(laptopClient));
    return joined ?? undefined;
  }, 30_000, 200);
  const result = await joining;
  if (!result.ok) throw new Error(result.message);
  desktop = result.value;
  desktopClient = createBackendClient({ baseUrl: backend.url, signer: desktop.identity });
}, 90_000);

afterAll(async () => {
  await backend?.stop();
  sandbox?.cleanup();
});

/** Walks a handoff to ownership-transferred with raw signed calls, as the two devices would. */
async function transferBehindItsBack(sessionId: string): Promise<void> {
  const handoffId = randomBytes(16).toString('base64url');
  const expectOk = <T>(result: { ok: boolean } & T) => { expect(result.ok).toBe(true); return result; };
  expectOk(await laptopClient.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: desktop.identity.deviceId, generation: 1 } }));
  const move = (client: BackendClient, from: string, to: string, extra = {}) =>
    client.call('transitionHandoff', { params: { handoffId }, body: { from, to, generation: 1, ...extra } as never });
  expectOk(await move(desktopClient, 'requested', 'target-prepared'));
  expectOk(await move(laptopClient, 'target-prepared', 'source-quiescing'));
  const body = randomBytes(64);
  const digest = createHash('sha256').update(body).digest('hex');
  expectOk(await laptopClient.putBlob(digest, body));
  expectOk(await move(laptopClient, 'source-quiescing', 'source-relinquished-and-checkpointed', { checkpoint: { digest, size: body.length } }));
  expectOk(await move(desktopClient, 'source-relinquished-and-checkpointed', 'ownership-transferred'));
}

describe('the session service', () => {
  it('stops driving a session at once when the backend refuses its append as stale, and refuses input as moved', async () => {
    const origin = sandbox.makeOrigin('app');
    const repo = sandbox.clone(origin, 'app');
    const state = new LocalState(join(sandbox.root, 'laptop'));
    const sessions = new SessionService({
      selfId: laptop.identity.deviceId, state, backend: syncBackend(laptopClient), seal: profileSeal(laptop),
      git: gitPort(createGitRunner({ env: sandbox.env })), clock: Date.now, changed: () => undefined, log: () => undefined,
      providers: providerPort({ detect: async () => [], create: () => new DemoAgent({ turnMs: 50 }) }),
    });
    const started = await sessions.start({ workspace: repo, provider: 'demo', prompt: 'hello' });
    if (!started.ok) throw new Error(started.message);
    const id = started.session.id;
    await waitFor('the first appends', async () => (state.session(id)!.eventCursor >= 3 ? true : undefined));
    expect(state.session(id)).toMatchObject({ generation: 1, ownerDeviceId: laptop.identity.deviceId, inputBlock: null });

    await transferBehindItsBack(id);
    // This device has not heard of the transfer: it still takes input, and its next append is refused.
    expect(await sessions.send(id, 'one more thing')).toEqual({ ok: true });
    await waitFor('the stale refusal to stop the session', async () => (state.session(id)!.inputBlock?.code === 'moved' ? true : undefined));
    expect(sessions.provider(id)).toBeUndefined();
    expect(await sessions.send(id, 'are you there?')).toMatchObject({ ok: false, code: 'moved' });
    const events = await laptopClient.call('listEvents', { params: { sessionId: id }, query: { after: 0 } });
    if (!events.ok) throw new Error(events.message);
    expect(events.value.events.every((e) => e.generation === 1)).toBe(true);
  }, 60_000);
});
