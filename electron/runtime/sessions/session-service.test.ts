/**
 * The session service against a real backend process: the owner's appends are fenced by its
 * generation, a device that gets `stale_generation` stops driving the session at once, and a
 * restarted owner resumes its sessions as a target would (import, else summary continuation).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TranscriptEntry } from '../../../shared/agents.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../../dev-env/git-sandbox.ts';
import { createAccount } from '../../enrollment/account.ts';
import { approvePendingJoins, createInvite } from '../../enrollment/invites.ts';
import { requestJoin } from '../../enrollment/join.ts';
import type { Profile } from '../../enrollment/profile.ts';
import { syncEnrollmentBackend, syncEnrollmentBackendFactory } from '../../enrollment/sync-backend.ts';
import { createGitRunner } from '../../git/git-runner.ts';
import { CommandAgentSession } from '../../providers/command-agent.ts';
import { DemoAgent } from '../../providers/demo-agent.ts';
import { createBackendClient, type BackendClient } from '../../sync/backend-client.ts';
import { gitPort } from '../adapters/git-port.ts';
import { LocalState, type LocalSession } from '../../local-state/local-state.ts';
import { startBaton, waitFor, type RunningProcess } from '../../../dev-env/process-harness.ts';
import { profileSeal } from '../adapters/seal-port.ts';
import { providerPort } from '../adapters/provider-port.ts';
import { SessionService, type SessionServiceDeps } from './session-service.ts';
import type { LocalState as LocalStateType } from '../../local-state/local-state.ts';
import { backendPort } from '../adapters/backend-port.ts';
import type { TurnRecord } from './turn-observer.ts';

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
  const created = await createAccount(join(sandbox.root, 'laptop'), [backend.url], 'laptop', deps);
  if (!created.ok) throw new Error(created.message);
  laptop = created.value;
  laptopClient = createBackendClient({ baseUrl: backend.url, signer: laptop.identity });
  const invite = await createInvite(laptop, syncEnrollmentBackend(laptopClient));
  if (!invite.ok) throw new Error(invite.message);
  const joining = requestJoin(join(sandbox.root, 'desktop'), invite.value.line, 'desktop', deps, { pollMs: 100 });
  let joined: Awaited<typeof joining> | null = null;
  void joining.then((result) => {
    joined = result;
  });
  await waitFor(
    'the join to be approved',
    async () => {
      await approvePendingJoins(laptop, syncEnrollmentBackend(laptopClient));
      return joined ?? undefined;
    },
    30_000,
    200,
  );
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
  const expectOk = <T>(result: { ok: boolean } & T) => {
    expect(result.ok).toBe(true);
    return result;
  };
  expectOk(
    await laptopClient.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: desktop.identity.deviceId, generation: 1 } }),
  );
  const move = (client: BackendClient, from: string, to: string, extra = {}) =>
    client.call('transitionHandoff', { params: { handoffId }, body: { from, to, generation: 1, ...extra } as never });
  expectOk(await move(desktopClient, 'requested', 'target-prepared'));
  expectOk(await move(laptopClient, 'target-prepared', 'source-quiescing'));
  const body = randomBytes(64);
  const digest = createHash('sha256').update(body).digest('hex');
  expectOk(await laptopClient.putBlob(digest, body));
  expectOk(
    await move(laptopClient, 'source-quiescing', 'source-relinquished-and-checkpointed', { checkpoint: { digest, size: body.length } }),
  );
  expectOk(await move(desktopClient, 'source-relinquished-and-checkpointed', 'ownership-transferred'));
}

describe('the sealed checkpoint as a stream', () => {
  it('is sealed into a file, uploaded from it under its digest, downloaded and opened chunk by chunk on the other device', async () => {
    const body = randomBytes((1 << 20) + 5);
    const sealer = profileSeal(laptop).startCheckpointSeal('session-parts', 'handoff-parts');
    const envelope = Buffer.concat([
      sealer.head,
      sealer.update(body.subarray(0, 1000)),
      sealer.update(body.subarray(1000)),
      sealer.final(),
    ]);
    const path = join(sandbox.root, 'sealed-checkpoint');
    writeFileSync(path, envelope);
    const sha256 = createHash('sha256').update(envelope).digest('hex');
    const put = await backendPort(laptopClient).putBlobFile({ path, size: envelope.length, sha256 });
    expect(put.ok && put.value).toEqual({ digest: sha256, size: envelope.length });
    const opener = profileSeal(desktop).startCheckpointOpen('session-parts', 'handoff-parts', envelope.length);
    const plain: Buffer[] = [];
    const back = await backendPort(desktopClient).getBlobTo(sha256, (chunk) => {
      const opened = opener.update(chunk);
      if (!opened.ok) throw new Error(opened.message);
      plain.push(opened.value);
    });
    expect(back.ok && back.value.size).toBe(envelope.length);
    expect(opener.final()).toEqual({ ok: true, value: { keyVersion: 1 } });
    expect(Buffer.concat(plain).equals(body)).toBe(true);
  });
});

describe('the session service', () => {
  it('tells a folder that does not exist from one that is not a repository, with `git init` for the latter', async () => {
    const sessions = laptopService(new LocalState(join(sandbox.root, 'laptop-folders')));
    const missing = join(sandbox.root, 'no-such-folder');
    expect(await sessions.start({ workspace: missing, provider: 'demo', prompt: 'hello' })).toEqual({
      ok: false,
      code: 'workspace_missing',
      message: `There is no folder ${missing} on this device. Check the path, or clone the repository there first.`,
      details: { field: 'workspace' },
    });
    const plain = join(sandbox.root, 'plain-folder');
    mkdirSync(plain);
    const refused = await sessions.start({ workspace: plain, provider: 'demo', prompt: 'hello' });
    expect(refused).toMatchObject({ ok: false, code: 'not_a_repository', details: { field: 'workspace' } });
    expect(!refused.ok && refused.message).toContain(`make this one a repository: git init ${plain}`);
    expect(await sessions.start({ workspace: 'src/app', provider: 'demo', prompt: 'hello' })).toMatchObject({
      ok: false,
      code: 'workspace_not_absolute',
    });
  });

  it('stops driving a session at once when the backend refuses its append as stale, and refuses input as moved', async () => {
    const origin = sandbox.makeOrigin('app');
    const repo = sandbox.clone(origin, 'app');
    const state = new LocalState(join(sandbox.root, 'laptop'));
    const sessions = laptopService(state);
    const started = await sessions.start({ workspace: repo, provider: 'demo', prompt: 'hello' });
    if (!started.ok) throw new Error(started.message);
    const id = started.value.id;
    await waitFor('the first appends', async () => (state.session(id)!.eventCursor >= 3 ? true : undefined));
    expect(state.session(id)).toMatchObject({ generation: 1, ownerDeviceId: laptop.identity.deviceId, inputBlock: null });

    await transferBehindItsBack(id);
    // This device has not heard of the transfer: it still takes input, and its next append is refused.
    expect(await sessions.send(id, 'one more thing')).toEqual({ ok: true });
    await waitFor('the stale refusal to stop the session', async () =>
      state.session(id)!.inputBlock?.code === 'moved' ? true : undefined,
    );
    expect(sessions.provider(id)).toBeUndefined();
    expect(await sessions.send(id, 'are you there?')).toMatchObject({ ok: false, code: 'moved' });
    const events = await laptopClient.call('listEvents', { params: { sessionId: id }, query: { after: 0 } });
    if (!events.ok) throw new Error(events.message);
    expect(events.value.events.every((e) => e.generation === 1)).toBe(true);
  }, 60_000);
});

describe('the turn observer', () => {
  it('is told of each turn that starts and ends with the generation and owner the device held, and of the turn a stop cuts short', async () => {
    const repo = sandbox.clone(sandbox.makeOrigin('turn-observer'), 'turn-observer');
    const state = new LocalState(join(sandbox.root, 'state-turn-observer'));
    const told: TurnRecord[] = [];
    // Turns of 300 ms: the second is still running when the service stops.
    const sessions = laptopService(state, undefined, undefined, {
      providers: providerPort({ detect: async () => [], create: () => new DemoAgent({ turnMs: 300 }) }),
      observeTurn: (record) => told.push(record),
    });
    const turns = () => told;
    const started = await sessions.start({ workspace: repo, provider: 'demo', prompt: 'first' });
    if (!started.ok) throw new Error(started.message);
    const id = started.value.id;
    await waitFor('the first turn to end', async () => (turns().length === 2 ? true : undefined));
    expect(await sessions.send(id, 'second')).toEqual({ ok: true });
    await waitFor('the second turn to start', async () => (turns().length === 3 ? true : undefined));
    await sessions.stopAll();

    const self = laptop.identity.deviceId;
    expect(turns()).toEqual([
      { deviceId: self, sessionId: id, event: 'started', generation: 1, ownerDeviceId: self, at: expect.any(Number) },
      { deviceId: self, sessionId: id, event: 'ended', generation: 1, ownerDeviceId: self, at: expect.any(Number), interrupted: false },
      { deviceId: self, sessionId: id, event: 'started', generation: 1, ownerDeviceId: self, at: expect.any(Number) },
      { deviceId: self, sessionId: id, event: 'ended', generation: 1, ownerDeviceId: self, at: expect.any(Number), interrupted: true },
    ]);
  }, 60_000);
});

/**
 * A laptop session service on `state`; the command agent is `cat` (it answers with the prompt it was
 * given) unless `commandArgv` says otherwise; `log` receives the device log; `overrides` replace deps.
 */
function laptopService(
  state: LocalStateType,
  commandArgv = ['cat'],
  log: (message: string) => void = () => undefined,
  overrides: Partial<SessionServiceDeps> = {},
): SessionService {
  return new SessionService({
    selfId: laptop.identity.deviceId,
    selfName: 'laptop',
    state,
    backend: backendPort(laptopClient),
    seal: profileSeal(laptop),
    git: gitPort(createGitRunner({ env: sandbox.env })),
    clock: Date.now,
    changes: { emit: () => undefined },
    log,
    providers: providerPort({
      detect: async () => [],
      create: (id) => (id === 'command' ? new CommandAgentSession({ argv: commandArgv, env: sandbox.env }) : new DemoAgent({ turnMs: 50 })),
    }),
    ...overrides,
  });
}

/**
 * Starts a session on a fresh repo and local state (named `name`) and waits until `ready` holds of it;
 * returns the service, the state and the session id.
 */
async function startedSession(
  name: string,
  input: { provider: string; prompt: string; title?: string },
  ready: (transcript: readonly TranscriptEntry[], s: LocalSession) => boolean,
) {
  const repo = sandbox.clone(sandbox.makeOrigin(name), name);
  const state = new LocalState(join(sandbox.root, `restart-${name}`));
  const before = laptopService(state);
  const started = await before.start({ workspace: repo, ...input });
  if (!started.ok) throw new Error(started.message);
  const id = started.value.id;
  await waitFor(`${name}: the first turn`, async () =>
    ready(state.transcriptPage(id, 0, Infinity), state.session(id)!) ? true : undefined,
  );
  return { before, state, id };
}

const answered = (transcript: readonly TranscriptEntry[]) => transcript.some((e) => e.role === 'assistant');

describe('what a provider says about itself', () => {
  it("reaches the device log as well as the transcript: a CLI's own error line", async () => {
    const state = new LocalState(join(sandbox.root, 'state-log'));
    const repo = sandbox.clone(sandbox.makeOrigin('logged'), 'logged');
    const logged: string[] = [];
    const failing = [
      process.execPath,
      '-e',
      `console.error("error: unexpected argument '--full-auto' found\\n\\nUsage: agent [OPTIONS]");process.exit(2)`,
    ];
    const sessions = laptopService(state, failing, (message) => logged.push(message));
    const started = await sessions.start({ workspace: repo, provider: 'command', prompt: 'go' });
    if (!started.ok) throw new Error(started.message);
    const line = "Command-line agent exited with code 2: error: unexpected argument '--full-auto' found";
    await waitFor('the error in the transcript', async () =>
      state.transcriptPage(started.value.id, 0, Infinity).some((e) => e.text === line) ? true : undefined,
    );
    expect(logged).toContain(`session ${started.value.id} (command): ${line}`);
    await sessions.stopAll();
  });
});

describe('a restarted owner', () => {
  it('resumes a session whose provider cannot import by summary continuation from its own transcript, records the path, and takes input again', async () => {
    const { before, state, id } = await startedSession(
      'summary',
      { provider: 'command', prompt: 'Count the TODO comments', title: 'TODO census' },
      answered,
    );
    await before.stopAll();

    const after = laptopService(state);
    expect(after.inputBlock(state.session(id)!)).toMatchObject({ code: 'not_running' });
    await after.resumeOwned();

    expect(after.provider(id)).toBeDefined();
    expect(after.inputBlock(state.session(id)!)).toBeNull();
    expect(state.session(id)!.restartResume).toMatchObject({
      path: 'summary-continuation',
      reason: expect.stringContaining('cannot import'),
    });
    expect(
      state
        .transcriptPage(id, 0, Infinity)
        .some((e) => e.role === 'system' && e.text.includes('restarted; the session resumed from a summary of its own transcript.')),
    ).toBe(true);
    // `cat` answers with the prompt it got: the continuation of this session, carrying its own transcript.
    const answer = await waitFor('the continuation answer', async () => {
      const answers = state.transcriptPage(id, 0, Infinity).filter((e) => e.role === 'assistant');
      return answers.length >= 2 ? answers.at(-1)!.text : undefined;
    });
    expect(answer).toContain('This is a continuation of the session "TODO census"');
    expect(answer).toContain('Count the TODO comments');
    expect(await after.send(id, 'and the FIXMEs')).toEqual({ ok: true });
    await after.stopAll();
  }, 60_000);

  it('resumes a session whose provider imports from the export it kept, and records checkpoint-import', async () => {
    const { before, state, id } = await startedSession(
      'import',
      { provider: 'demo', prompt: 'Read the README' },
      (_, s) => s.providerResume !== null,
    );
    await before.stopAll();

    const after = laptopService(state);
    // Start-up and a cancelled move's clean-up can ask at once: the session is resumed once.
    await Promise.all([after.resumeOwned(), after.resumeOwned()]);
    expect(after.provider(id)).toBeDefined();
    expect(state.session(id)!.restartResume).toMatchObject({ path: 'checkpoint-import', reason: null });
    // Said once, naming the device (every device of the account reads the note).
    expect(
      state
        .transcriptPage(id, 0, Infinity)
        .filter((e) => e.role === 'system' && e.text === 'laptop restarted; the session resumed by importing the session it kept.'),
    ).toHaveLength(1);
    await waitFor('the imported state', async () =>
      state.transcriptPage(id, 0, Infinity).some((e) => e.text.includes('full state was imported')) ? true : undefined,
    );
    expect(await after.send(id, 'and the changelog')).toEqual({ ok: true });
    await after.stopAll();
  }, 60_000);

  it('starts no turn for a session it was quiescing for a move (the source resumes it if that move is cancelled)', async () => {
    const { before, state, id } = await startedSession('quiescing', { provider: 'command', prompt: 'List the scripts' }, answered);
    before.setInputBlock(id, { code: 'quiescing', message: 'The session is moving to another device; input is paused.' });
    await before.stopAll();

    const after = laptopService(state);
    await after.resumeOwned();
    expect(after.provider(id)).toBeUndefined();
    expect(state.session(id)!.restartResume ?? null).toBeNull();
    expect(state.transcriptPage(id, 0, Infinity).filter((e) => e.role === 'assistant')).toHaveLength(1);
  }, 60_000);
});
