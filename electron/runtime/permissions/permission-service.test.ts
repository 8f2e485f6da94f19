/**
 * Permission requests between two devices of one account over a real backend process, with the
 * demo agent asking: the owner keeps the request pending, the other device learns it through the
 * sealed event stream and answers it through the backend, the owner applies an answer once and
 * only when it is what it claims to be, "Allow for this session" rules are remembered and sealed
 * with the session, and nothing waits forever: Stop, a stopping device and a restart end a request.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRequestView } from '../../../shared/permission-views.ts';
import { startEnrollmentWorld, firstDevice, joinedDevice, type EnrollmentWorld } from '../../../dev-env/enrollment-fixture.ts';
import { createGitSandbox, type GitSandbox } from '../../../dev-env/git-sandbox.ts';
import { waitFor } from '../../../dev-env/process-harness.ts';
import { sessionServiceOf, type SessionServiceParts } from '../../../dev-env/session-services.ts';
import { toBase64url } from '../../crypto/base64url.ts';
import type { Profile } from '../../enrollment/profile.ts';
import type { LocalSession } from '../../local-state/local-state.ts';
import { DEMO_COMMAND, DemoAgent } from '../../providers/demo-agent.ts';
import { providerPort } from '../adapters/provider-port.ts';
import { profileSeal } from '../adapters/seal-port.ts';
import { openSessionMeta } from '../sessions/session-meta.ts';

let world: EnrollmentWorld;
let sandbox: GitSandbox;
let laptop: Profile;
let desktop: Profile;
let stateDirs = 0;

beforeAll(async () => {
  world = await startEnrollmentWorld();
  sandbox = createGitSandbox('baton-permission-requests-');
  laptop = await firstDevice(world, 'laptop');
  desktop = await joinedDevice(world, laptop, 'desktop');
}, 90_000);

afterAll(async () => {
  await world?.close();
  sandbox?.cleanup();
});

/** A session service of `profile` with demo agents, knowing the account's devices; its log lines go to `log`. */
async function device(profile: Profile, stateDir = `state-${++stateDirs}`, log: string[] = []): Promise<SessionServiceParts> {
  const parts = sessionServiceOf(profile, {
    log: (line) => log.push(line),
    backendUrl: world.backendUrl,
    stateDir: join(sandbox.root, stateDir),
    gitEnv: sandbox.env,
    providers: providerPort({
      detect: async () => [],
      create: (_id, settings) => new DemoAgent({ turnMs: 20, permission: settings.permission }),
    }),
  });
  await parts.refreshDevices();
  return parts;
}

/** A session on `owner` whose demo agent is asked `prompt`, and its first permission request once pending. */
async function asking(owner: SessionServiceParts, prompt: string, permission: 'ask' | 'workspace' = 'workspace') {
  const repo = sandbox.clone(sandbox.makeOrigin(`perm-${++stateDirs}`), `perm-${stateDirs}`);
  const started = await owner.sessions.start({ workspace: repo, provider: 'demo', prompt, permission });
  if (!started.ok) throw new Error(started.message);
  const id = started.value.id;
  const request = await waitFor('the request', async () => owner.state.session(id)?.permissions.pending[0]);
  return { id, request, repo };
}

/** `other` learns the session and reads its events. */
async function follow(other: SessionServiceParts, sessionId: string): Promise<void> {
  const record = await other.client.call('getSession', { params: { sessionId } });
  if (!record.ok) throw new Error(record.message);
  await other.sessions.applyRemote(record.value.session);
  await other.sessions.pullEvents(sessionId);
}

/**
 * `other` reads the session's events until `probe` holds of its record: the owner posts each event
 * after it has recorded it, so the other device learns it a moment later.
 */
async function pullUntil(other: SessionServiceParts, sessionId: string, what: string, probe: (session: LocalSession) => boolean) {
  await waitFor(what, async () => {
    await other.sessions.pullEvents(sessionId);
    const session = other.state.session(sessionId);
    return session && probe(session) ? true : undefined;
  });
}

const texts = (parts: SessionServiceParts, id: string) => parts.state.transcriptPage(id, 0, Infinity).map((e) => e.text);
const untilText = (parts: SessionServiceParts, id: string, part: string) =>
  waitFor(`"${part}" in the transcript`, async () => texts(parts, id).find((t) => t.includes(part)));

describe('permission requests across devices', () => {
  it('shows the request on the other device, and its answer from there is applied once: the agent goes on and the transcript says who answered', async () => {
    const owner = await device(laptop);
    const other = await device(desktop);
    const { id, request } = await asking(owner, 'run a command');
    expect(request).toMatchObject({ tool: 'Bash', command: DEMO_COMMAND, generation: 1, agent: 'main', providerLabel: 'Demo agent' });
    expect(request.id).toMatch(/^perm-/);
    expect(owner.state.session(id)?.agents.find((a) => a.id === 'main')?.status).toBe('running');

    await follow(other, id);
    await pullUntil(other, id, 'the request on the desktop', (s) => s.permissions.pending.length > 0);
    expect(other.state.session(id)?.permissions.pending).toEqual([request]);
    expect(await other.sessions.answerPermission(id, request.id, 1, { decision: 'allow' })).toEqual({ ok: true, value: undefined });
    // The owner's push would say so; here it reads the answers itself.
    await owner.posts.pull(id);
    await untilText(owner, id, `I ran \`${DEMO_COMMAND}\``);
    expect(texts(owner, id)).toContain(`Permission to run \`${DEMO_COMMAND}\`: allowed on desktop.`);

    // The first answer won: a later one, from either device, is refused and says by whom.
    expect(await owner.sessions.answerPermission(id, request.id, 1, { decision: 'deny' })).toMatchObject({
      ok: false,
      code: 'already_answered',
      message: 'It was already answered on desktop (allow).',
    });
    await pullUntil(other, id, 'the outcome on the desktop', (s) => s.permissions.outcomes.length > 0);
    expect(other.state.session(id)?.permissions.pending).toEqual([]);
    expect(other.state.session(id)?.permissions.outcomes.at(-1)).toMatchObject({
      requestId: request.id,
      decision: 'allow',
      byName: 'desktop',
    });
    await owner.sessions.stopAll();
  }, 60_000);

  it('refuses and logs a replayed answer, another session’s, one naming another device, a forged one and one for no request, telling the first in the transcript', async () => {
    const log: string[] = [];
    const owner = await device(laptop, undefined, log);
    const other = await device(desktop);
    const { id, request } = await asking(owner, 'run a command');
    const second = await asking(owner, 'run a command');
    await follow(other, id);
    const seal = profileSeal(desktop);
    const post = async (sessionId: string, body: object) =>
      other.client.call('postAnswer', {
        params: { sessionId: id },
        body: { generation: 1, sealedBody: seal.sealJson(body, { kind: 'permission-answer', sessionId }) },
      });
    const base = { sessionId: id, generation: 1, requestId: request.id, answer: { decision: 'allow' }, at: 1 };
    const signed = (answerId: string, deviceId: string, fields: object = {}) => {
      const body = { ...base, answerId, deviceId, ...fields };
      const bytes = new TextEncoder().encode(
        JSON.stringify(['baton-permission-answer/1', answerId, id, 1, body.requestId, 'allow', '', deviceId, 1]),
      );
      return { ...body, signature: toBase64url(desktop.identity.sign(bytes)) };
    };
    await post(second.id, signed('a-other-session', desktop.identity.deviceId, { sessionId: second.id }));
    await post(id, signed('a-names-laptop', laptop.identity.deviceId));
    await post(id, { ...signed('a-forged', desktop.identity.deviceId), signature: toBase64url(new Uint8Array(64)) });
    await post(id, signed('a-no-request', desktop.identity.deviceId, { requestId: 'perm-nothing' }));
    await owner.posts.pull(id);
    expect(owner.state.session(id)?.permissions.pending).toHaveLength(1);

    // A real answer, then the same bytes once more (as a backend could serve them again).
    expect((await other.sessions.answerPermission(id, request.id, 1, { decision: 'deny', message: 'not now' })).ok).toBe(true);
    const stored = await other.client.call('listAnswers', { params: { sessionId: id } });
    const last = stored.ok ? stored.value.answers.at(-1) : undefined;
    await other.client.call('postAnswer', { params: { sessionId: id }, body: { generation: 1, sealedBody: last!.sealedBody } });
    await owner.posts.pull(id);
    await untilText(owner, id, 'you said no ("not now")');
    // Each refusal is in the owner's log; the transcript tells the first, and would sum up the others a minute later.
    expect(texts(owner, id).filter((t) => /answers? from/.test(t))).toEqual([
      'An answer from desktop was refused: it does not open as an answer for this session.',
    ]);
    expect(
      log
        .filter((line) => line.startsWith(`session ${id}: refused an answer from desktop: `))
        .map((l) => l.split(': ').slice(2).join(': ')),
    ).toEqual([
      'it does not open as an answer for this session',
      'it names another device than the one that sent it',
      'it is not signed by an enrolled device of the account',
      'the session has no such permission request',
      'it is a replay of an answer already seen',
    ]);
    expect(texts(owner, id)).toContain(`Permission to run \`${DEMO_COMMAND}\`: denied on desktop: “not now”.`);
    await owner.sessions.stopAll();
  }, 60_000);

  it('"Allow for this session" allows the same command from then on without asking, and keeps the rule sealed with the session', async () => {
    const owner = await device(laptop);
    const { id, request } = await asking(owner, 'run a command');
    expect(request.sessionRule).toEqual({ tool: 'Bash', commandPrefix: DEMO_COMMAND });
    expect((await owner.sessions.answerPermission(id, request.id, 1, { decision: 'allow-session' })).ok).toBe(true);
    await untilText(owner, id, `I ran \`${DEMO_COMMAND}\``);
    expect(owner.state.session(id)?.permissions.rules).toEqual([{ tool: 'Bash', commandPrefix: DEMO_COMMAND }]);

    expect((await owner.sessions.send(id, 'run a command again')).ok).toBe(true);
    await untilText(owner, id, 'allowed by this session');
    await waitFor('the second turn', async () => (texts(owner, id).filter((t) => t.includes('I ran')).length === 2 ? true : undefined));
    expect(owner.state.session(id)?.permissions.pending).toEqual([]);
    expect(texts(owner, id)).toContain(
      `Permission to run \`${DEMO_COMMAND}\`: allowed by this session's rule (\`${DEMO_COMMAND}\` (with any plain arguments)).`,
    );

    await waitFor('the rule in the sealed metadata', async () => {
      const record = await owner.client.call('getSession', { params: { sessionId: id } });
      const meta = record.ok ? openSessionMeta(profileSeal(desktop), record.value.session) : null;
      return meta?.ok && meta.value.permissionRules.length === 1 ? meta.value.permissionRules : undefined;
    });
    await owner.sessions.stopAll();
  }, 60_000);

  it('never waits for nobody: Stop denies the request, a stopping device denies it, and a restart ends the turn it left and says so', async () => {
    const stopped = await device(laptop);
    const first = await asking(stopped, 'edit a file', 'ask');
    expect((await stopped.sessions.interruptTurn(first.id)).ok).toBe(true);
    expect(stopped.sessions.provider(first.id)?.isTurnActive()).toBe(false);
    expect(stopped.state.session(first.id)?.permissions.outcomes.at(-1)).toMatchObject({ via: 'interrupt', decision: 'deny' });

    const second = await asking(stopped, 'edit a file', 'ask');
    await stopped.sessions.stopAll();
    expect(stopped.state.session(second.id)?.permissions.outcomes.at(-1)).toMatchObject({
      via: 'stop',
      message: 'laptop stopped; ask again once it runs.',
    });

    // A crash: the agent's process is gone (no answer was written), the request still pending in the record.
    const crashed = await device(laptop, 'crash-state');
    const third = await asking(crashed, 'edit a file', 'ask');
    await crashed.sessions.detach(third.id);
    expect(crashed.state.session(third.id)?.permissions.pending).toHaveLength(1);
    await crashed.state.settled(true);
    // An answer posted meanwhile finds nobody waiting for it: it is refused, not "allowed" into the void.
    const other = await device(desktop);
    await follow(other, third.id);
    await pullUntil(other, third.id, 'the request on the desktop', (s) => s.permissions.pending.length > 0);
    expect((await other.sessions.answerPermission(third.id, third.request.id, 1, { decision: 'allow' })).ok).toBe(true);
    const restarted = await device(laptop, 'crash-state');
    await restarted.posts.pull(third.id);
    expect(texts(restarted, third.id)).toContain(
      'An answer from desktop was refused: the agent no longer waits for this answer: its turn ended.',
    );
    await restarted.sessions.resumeOwned();
    // (The resumed agent may ask again, from the continuation prompt: that is a new request.)
    const pending: PermissionRequestView[] = restarted.state.session(third.id)?.permissions.pending ?? [];
    expect(pending.map((p) => p.id)).not.toContain(third.request.id);
    expect(restarted.state.session(third.id)?.permissions.outcomes.at(-1)).toMatchObject({ requestId: third.request.id, via: 'restart' });
    expect(texts(restarted, third.id)).toContain(
      'Permission to Edit ' +
        `${third.repo}/notes/demo-agent.md: denied by Baton: “laptop restarted while this was asked, which ended that turn; send the message again to ask again.”`,
    );
    await restarted.sessions.stopAll();
  }, 60_000);
  // Last: the flood spends the desktop's posts for the backend's window.
  it('an answer to a request that is not pending is refused by its sender, and a device flooding the owner with such answers adds one note, not one each', async () => {
    const log: string[] = [];
    const owner = await device(laptop, undefined, log);
    const other = await device(desktop);
    const { id } = await asking(owner, 'run a command');
    await follow(other, id);
    expect(await other.sessions.answerPermission(id, 'perm-nothing', 1, { decision: 'allow' })).toMatchObject({
      ok: false,
      code: 'request_not_pending',
    });
    const before = texts(owner, id).length;
    // A hostile device posts straight to the backend, signed and sealed as an answer is: each one to an unknown request.
    const seal = profileSeal(desktop);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const fields = ['baton-permission-answer/1', `a-${i}`, id, 1, `perm-unknown-${i}`, 'allow', '', desktop.identity.deviceId, 1];
      const signature = toBase64url(desktop.identity.sign(new TextEncoder().encode(JSON.stringify(fields))));
      const body = { answerId: `a-${i}`, sessionId: id, generation: 1, requestId: `perm-unknown-${i}`, answer: { decision: 'allow' } };
      const sealedBody = seal.sealJson(
        { ...body, deviceId: desktop.identity.deviceId, at: 1, signature },
        { kind: 'permission-answer', sessionId: id },
      );
      const posted = await other.client.call('postAnswer', { params: { sessionId: id }, body: { generation: 1, sealedBody } });
      statuses.push(posted.ok ? 200 : posted.status);
    }
    // The backend takes a window's worth from one device and refuses the rest for now.
    expect(statuses.filter((s) => s === 200).length).toBeLessThan(100);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    await owner.posts.pull(id);
    const accepted = statuses.filter((s) => s === 200).length;
    expect(log.filter((line) => line.startsWith(`session ${id}: refused an answer from desktop`))).toHaveLength(accepted);
    expect(texts(owner, id).slice(before)).toEqual(['An answer from desktop was refused: the session has no such permission request.']);
    await owner.sessions.stopAll();
  }, 60_000);
});
