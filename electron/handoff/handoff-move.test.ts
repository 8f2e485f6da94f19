/**
 * Integration: a real backend process and two real device processes move a demo-agent session
 * over real git (bare origin). One backend and one pair of devices for the whole file, over HTTPS
 * with the backend's own self-signed key, pinned by both devices (the desktop from its invite).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../enrollment/profile.ts';
import { DEMO_EDIT_PATH } from '../providers/demo-agent.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { BackendTrust } from '../sync/backend-trust.ts';
import type { SessionDetail } from '../../shared/device-api.ts';
import { FORWARD_STATES, type HandoffState } from '../../shared/handoff-states.ts';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import { holdAt } from '../../dev-env/step-holds.ts';

/** Real processes on a busy 2-core machine: give each test room beyond the default. */
const TEST_TIMEOUT_MS = 120_000;

let world: TwoDevices;
/** What the completed move carried, for the plaintext check. */
const carried = { sessionId: '', commit: '', transcript: '' };
/** Names only the cancelled and blocked moves use (repo folder, branch, remote name and URL, a clone path, a file), to find wherever they leak. */
const MARK = {
  folder: 'folder-Qx7FOLDER',
  branch: 'feature/branch-Qx7BRANCH',
  remoteName: 'remote-Qx7RNAME',
  remoteUrl: 'origin-Qx7RURL',
  clonePath: 'clone-Qx7CLONEPATH',
  file: 'draft-Qx7FILE.txt',
  shortCommit: '',
};

beforeAll(async () => {
  world = await startTwoDevices({ tls: true, env: { BATON_PREPARE_TIMEOUT_MS: '15000', BATON_DEMO_TURN_MS: '200' } });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

const head = (repo: string) => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, env: world.env, encoding: 'utf8' }).trim();

describe('a complete Move between two device processes', () => {
  // The move, once for these tests: the laptop moves an idle session to the desktop, whose resumed agent
  // then answers a message. What each UI was sent meanwhile is kept for the tests to read.
  let commit = '';
  let sessionId = '';
  let laptopId = '';
  let desktopId = '';
  let onDesktop: SessionDetail;
  /** Per device (laptop, desktop): the events its UI was sent during the move, and the handoff states among them. */
  const sent: string[][] = [[], []];
  const states: HandoffState[][] = [[], []];
  /** What the UIs were sent during the resumed agent's turn: its entries as activity, and whole sessions. */
  const turn = { activity: [] as string[], details: 0 };

  beforeAll(async () => {
    const { laptop, desktop } = world;
    commit = world.sandbox.commitFile(world.repo, 'src/parser.ts', 'export const parse = () => 1;\n', 'Add the parser');
    world.sandbox.push(world.repo);
    const session = await startDemoSession(laptop, world.repo);
    expect(session.generation).toBe(1);
    sessionId = session.id;
    await waitEligible(laptop, session.id, 'desktop');
    const offs = [laptop, desktop].flatMap((device, i) => [
      ...(['handoffChanged', 'sessionChanged', 'sessionsChanged'] as const).map((event) =>
        device.client.on(event, () => sent[i]!.push(event)),
      ),
      device.client.on('handoffChanged', (h) => states[i]!.push(h.state)),
    ]);
    [laptopId, desktopId] = [await deviceId(laptop), await deviceId(desktop)];
    const moved = await laptop.client.call('startMove', { sessionId, targetDeviceId: desktopId });
    expect(moved.ok).toBe(true);
    onDesktop = await waitSession(
      desktop,
      sessionId,
      'the desktop to own the session after a completed move',
      (d) => d.isOwner && d.lastHandoff?.state === 'completed' && d.inputBlock === null,
    );
    await waitSession(laptop, sessionId, 'the laptop to see the move complete', (d) => d.lastHandoff?.state === 'completed');
    offs.forEach((off) => off());

    const listening = [desktop, laptop].flatMap((device) => [
      device.client.on('sessionActivity', (a) => turn.activity.push(...a.transcript.map((e) => `${device.name}: ${e.text}`))),
      device.client.on('sessionChanged', () => {
        turn.details += 1;
      }),
    ]);
    expect(await desktop.client.call('sendMessage', { sessionId, text: 'carry on' })).toEqual({ ok: true });
    const answered = (d: SessionDetail) => d.transcript.some((e) => e.role === 'assistant' && e.text.includes('carry on'));
    await waitSession(desktop, sessionId, 'the resumed agent to answer', answered);
    await waitSession(laptop, sessionId, 'the laptop to see the answer', answered);
    listening.forEach((off) => off());
    Object.assign(carried, { sessionId, commit, transcript: onDesktop.transcript.find((e) => e.role === 'assistant')?.text ?? '' });
  }, TEST_TIMEOUT_MS);

  it('moves the session to the desktop at the source commit, generation 2, resumed from the checkpoint with its transcript', () => {
    expect(onDesktop.generation).toBe(2);
    expect(onDesktop.lastHandoff?.resumePath).toBe('checkpoint-import');
    expect(head(onDesktop.workspace)).toBe(commit);
    expect(onDesktop.workspace.startsWith(world.desktop.workspaceRoot)).toBe(true);
    expect(onDesktop.transcript.some((e) => e.text.includes('Look around the repository'))).toBe(true);
  });

  it("ran over HTTPS, both devices pinning the backend's self-signed key (the desktop from its invite), none refused", async () => {
    expect(world.backendUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(world.backendPins).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);
    for (const device of [world.laptop, world.desktop]) {
      expect((await device.client.call('getStatus', {})).backendKey).toEqual({ pinned: world.backendPins, refused: null });
    }
  });

  it('goes through every state in order, each entered by its own side; the desktop claims and activates in one commit', () => {
    expect(onDesktop.lastHandoff?.history.map((h) => h.state)).toEqual([
      'requested',
      'target-prepared',
      'source-quiescing',
      'source-relinquished-and-checkpointed',
      'ownership-transferred',
      'target-activating',
      'completed',
    ]);
    const [quiescing, relinquished, claimed, activating] = onDesktop.lastHandoff!.history.slice(2, 6);
    expect([quiescing, relinquished, claimed, activating].map((h) => h?.deviceId)).toEqual([laptopId, laptopId, desktopId, desktopId]);
    // The claim always carries target-activating. Whether the idle laptop's quiescing and relinquish
    // share a commit depends on its speculative checkpoint winning a race with the target's prepare:
    // an optimization bench:handoff counts (commits_per_move), not a promise.
    expect(activating?.at).toBe(claimed?.at);
    expect(relinquished!.at).toBeGreaterThanOrEqual(quiescing!.at);
  });

  it('shows each UI the move as it goes, each handoff change followed by the session list, never by the whole session', () => {
    // Views are sent once per turn (view-batch.ts), so two transitions a device learns of together
    // (one events read carrying both) reach its UI as one view of the later state.
    for (const events of sent) {
      const afterTransitions = events.flatMap((event, i) => (event === 'handoffChanged' ? [events[i + 1]] : []));
      expect(afterTransitions.every((event) => event === 'sessionsChanged')).toBe(true);
    }
    for (const seen of states) {
      const order = seen.map((state) => (FORWARD_STATES as readonly string[]).indexOf(state));
      expect(order.every((at, i) => at >= 0 && (i === 0 || at >= order[i - 1]!))).toBe(true);
      expect(seen.at(-1)).toBe('completed');
      // Shown as it goes, not only once it is over.
      expect(new Set(seen).size).toBeGreaterThanOrEqual(4);
    }
  });

  it("brings the resumed agent's turn to each UI as activity (the new entries), never as the whole session", () => {
    expect(turn.activity).toEqual(expect.arrayContaining(['desktop: carry on', 'laptop: carry on']));
    expect(turn.activity.some((line) => line.startsWith('laptop: ') && line.includes('carry on') && line !== 'laptop: carry on')).toBe(
      true,
    );
    expect(turn.details).toBe(0);
  });

  it('fences the laptop off: it shows the session as moved and refuses input', async () => {
    const { laptop } = world;
    const onLaptop = await waitSession(laptop, sessionId, 'the laptop to see the move', (d) => !d.isOwner && d.generation === 2);
    expect(onLaptop.condition).toBe('moved');
    expect(onLaptop.inputBlock?.code).toBe('moved');
    const refused = await laptop.client.call('sendMessage', { sessionId, text: 'still there?' });
    expect(refused).toMatchObject({ ok: false, code: 'moved' });
  });

  it("has the backend refuse an append signed by the laptop at its old generation, and take the resumed agent's only after the move's last commit", async () => {
    const profile = loadProfile(world.laptop.profile);
    if (!profile.ok) throw new Error(profile.message);
    const trust = new BackendTrust(profile.value.info.backendPins);
    const client = createBackendClient({ baseUrl: world.backendUrl, signer: profile.value.identity, trust });
    const stale = await client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: 'AAAA' } });
    expect(stale).toMatchObject({ ok: false, code: 'stale_generation' });
    const listed = await client.call('listEvents', { params: { sessionId }, query: { after: 0, limit: 1000 } });
    if (!listed.ok) throw new Error(listed.message);
    const completedAt = onDesktop.lastHandoff!.history.find((h) => h.state === 'completed')!.at;
    const fromDesktop = listed.value.events.filter((e) => e.generation === 2);
    expect(fromDesktop.length).toBeGreaterThan(0);
    expect(Math.min(...fromDesktop.map((e) => e.createdAt))).toBeGreaterThanOrEqual(completedAt);
  });
});

describe('cancelled and blocked moves', () => {
  it(
    'show their reasons on both devices while the backend gets only the codes: re-check, prepare refusals, readiness block',
    async () => {
      const { laptop, desktop, sandbox } = world;
      const desktopId = await deviceId(desktop);
      const origin = sandbox.makeOrigin(MARK.remoteUrl);
      const repo = sandbox.clone(origin, join(laptop.workspaceRoot, MARK.folder));
      sandbox.git(repo, ['remote', 'rename', 'origin', MARK.remoteName]);
      sandbox.git(repo, ['checkout', '-q', '-b', MARK.branch]);
      sandbox.git(repo, ['push', '-q', '-u', MARK.remoteName, MARK.branch]);
      MARK.shortCommit = head(repo).slice(0, 7);
      const session = await startDemoSession(laptop, repo, 'Tidy the marker repository');
      await waitEligible(laptop, session.id, 'desktop');
      /** Moves, waits for the move to end cancelled on both devices, and returns the reason each shows. */
      const cancelledMove = async (what: string, whileRequested: () => Promise<void> = async () => undefined) => {
        const release = holdAt(desktop, 'target-step-at-requested');
        const moved = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
        if (!moved.ok) throw new Error(`${what}: move refused: ${moved.code} ${moved.message}`);
        await whileRequested();
        release();
        const ended = (d: SessionDetail) => d.lastHandoff?.id === moved.value.handoffId && d.lastHandoff.state === 'cancelled';
        const onLaptop = await waitSession(laptop, session.id, `${what} to be cancelled`, (d) => ended(d) && d.inputBlock === null);
        const onDesktop = await waitSession(desktop, session.id, `the desktop to see ${what} cancelled`, ended);
        expect(onLaptop).toMatchObject({ isOwner: true, generation: 1 });
        expect(onDesktop.lastHandoff?.cancelReason).toEqual(onLaptop.lastHandoff?.cancelReason);
        return onLaptop.lastHandoff!.cancelReason!;
      };

      // The agent dirties the tree after readiness passed: the checkpoint re-check cancels, naming the repository folder.
      const recheck = await cancelledMove('the re-checked move', async () => {
        expect(await laptop.client.call('sendMessage', { sessionId: session.id, text: 'Please edit a file' })).toEqual({ ok: true });
        await waitSession(laptop, session.id, 'the edit', (d) => d.transcript.some((e) => e.text.includes('I edited one file')));
      });
      expect(recheck.code).toBe('dirty_tree');
      expect(recheck.message).toContain(MARK.folder);
      sandbox.git(repo, ['add', '-A']);
      sandbox.git(repo, ['commit', '-q', '-m', 'Keep the demo notes']);
      sandbox.git(repo, ['push', '-q']);

      // The branch vanished from the remote: the target's prepare refuses, naming the branch and the remote.
      sandbox.git(origin, ['branch', '-D', MARK.branch]);
      const gone = await cancelledMove('the move of a branch the remote lost');
      expect(gone.code).toBe('target_cannot_open_workspace');
      expect(gone.message).toContain(MARK.branch);
      expect(gone.message).toContain(MARK.remoteUrl);
      sandbox.git(repo, ['push', '-q', MARK.remoteName, MARK.branch]);

      // The target's own clone is dirty: its prepare refuses, naming the clone's path.
      const clone = sandbox.clone(origin, join(desktop.workspaceRoot, MARK.clonePath));
      sandbox.writeFile(clone, 'scratch.txt', 'mine\n');
      const dirtyClone = await cancelledMove('the move to a dirty clone');
      expect(dirtyClone.code).toBe('target_workspace_dirty');
      expect(dirtyClone.message).toContain(MARK.clonePath);
      rmSync(clone, { recursive: true, force: true });

      // Readiness blocks before anything moves: the report names the file, the backend hears nothing.
      sandbox.writeFile(repo, MARK.file, 'draft\n');
      const blocked = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      if (blocked.ok || !('report' in blocked)) throw new Error('expected a blocked report');
      expect(blocked.report.blockers.map((b) => b.code)).toEqual(['dirty_tree']);
      expect(JSON.stringify(blocked.report)).toContain(MARK.file);
      rmSync(join(repo, MARK.file));
    },
    TEST_TIMEOUT_MS,
  );
});

describe('a session moved at "Ask before edits and commands" while its agent asks', () => {
  it(
    'denies the request as the move quiesces it, saying why on the target; there the agent asks at the same level, another device answers it, and an answer bound to the old generation is refused',
    async () => {
      const { laptop, desktop } = world;
      const session = await laptop.client.take('startSession', {
        workspace: world.repo,
        provider: 'demo',
        prompt: 'Read the parser',
        title: 'Careful session',
        permission: 'ask',
      });
      expect(session.permission).toBe('ask');
      await waitSession(laptop, session.id, 'the first turn', (d) => d.transcript.some((e) => e.role === 'assistant'));
      expect(await laptop.client.call('sendMessage', { sessionId: session.id, text: 'Now edit a file' })).toEqual({ ok: true });
      const asked = await waitSession(laptop, session.id, 'the request to edit', (d) => d.permissionRequests.length === 1);
      const first = asked.permissionRequests[0]!;
      expect(first).toMatchObject({ tool: 'Edit', generation: 1, path: join(world.repo, DEMO_EDIT_PATH) });
      expect(asked.agents.find((a) => a.id === 'main')?.status).toBe('asking');
      // The other device shows the same request, learned from the sealed event stream.
      await waitSession(desktop, session.id, 'the request on the desktop', (d) => d.permissionRequests[0]?.id === first.id);

      await waitEligible(laptop, session.id, 'desktop');
      expect((await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: await deviceId(desktop) })).ok).toBe(true);
      const onDesktop = await waitSession(
        desktop,
        session.id,
        'the careful session to complete its move',
        (d) => d.isOwner && d.lastHandoff?.state === 'completed' && d.inputBlock === null,
      );
      expect(onDesktop.permission).toBe('ask');
      expect(onDesktop.permissionRequests).toEqual([]);
      const denied = `Permission to Edit ${first.path}: denied by Baton: “The session is moving to desktop; ask again there.”`;
      expect(onDesktop.transcript.map((e) => e.text)).toContain(denied);
      expect(existsSync(join(world.repo, DEMO_EDIT_PATH))).toBe(false);

      // The laptop no longer runs the session: its answer to the old request, bound to generation 1, is refused.
      const stale = await laptop.client.call('answerPermission', {
        sessionId: session.id,
        requestId: first.id,
        generation: 1,
        decision: 'allow',
      });
      expect(stale).toMatchObject({ ok: false, code: 'stale_generation' });

      // The target's agent runs at the same level: it asks, and the laptop answers it from afar.
      expect(await desktop.client.call('sendMessage', { sessionId: session.id, text: 'Now edit a file' })).toEqual({ ok: true });
      const again = await waitSession(desktop, session.id, 'the request on the desktop', (d) => d.permissionRequests.length === 1);
      const second = again.permissionRequests[0]!;
      expect(second).toMatchObject({ generation: 2, deviceId: await deviceId(desktop) });
      await waitSession(laptop, session.id, 'the new request on the laptop', (d) => d.permissionRequests[0]?.id === second.id);
      const answer = { sessionId: session.id, requestId: second.id, generation: 2, decision: 'deny' as const, message: 'keep the notes' };
      expect(await laptop.client.call('answerPermission', answer)).toEqual({ ok: true });
      const answered = await waitSession(desktop, session.id, 'the denied edit on the desktop', (d) =>
        d.transcript.some((e) => e.text.includes('you said no ("keep the notes")')),
      );
      expect(answered.transcript.map((e) => e.text)).toContain(`Permission to Edit ${second.path}: denied on laptop: “keep the notes”.`);
      expect(existsSync(join(onDesktop.workspace, DEMO_EDIT_PATH))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('what the backend stored', () => {
  it(
    'holds no plaintext of the session title, repo path, commit id, transcript or any cancel or block reason, nor logs them',
    () => {
      expect(carried.sessionId).not.toBe('');
      expect(MARK.shortCommit).not.toBe('');
      const secrets = [
        'Fix the flaky parser test',
        world.repo,
        carried.commit,
        'Look around the repository',
        carried.transcript.slice(0, 40),
        MARK.folder,
        MARK.branch,
        MARK.remoteName,
        MARK.remoteUrl,
        MARK.clonePath,
        MARK.file,
        MARK.shortCommit,
        'uncommitted',
        // A permission request (the file it would edit) and the answer's message to the agent.
        DEMO_EDIT_PATH,
        'keep the notes',
        'moving to desktop',
      ];
      expect(secrets.every((s) => s.length >= 7)).toBe(true);

      // The backend's own log (stdout and stderr) names none of it either.
      const log = world.backend.stdout() + world.backend.stderr();
      for (const secret of secrets) expect(log.includes(secret), `${secret} in the backend log`).toBe(false);

      // Row by row, through SQLite.
      const db = new Database(join(world.backendData, 'baton.sqlite'), { readonly: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
        const rows = tables.flatMap(({ name }) => db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]);
        expect(rows.some((row) => Object.values(row).includes(carried.sessionId))).toBe(true);
        const text = rows
          .map((row) =>
            Object.values(row)
              .map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : String(v)))
              .join('\u0000'),
          )
          .join('\n');
        for (const secret of secrets) expect(text).not.toContain(secret);
      } finally {
        db.close();
      }

      // And every byte on disk: database, WAL and blob files.
      const files = filesUnder(world.backendData);
      expect(files.some((f) => /^[0-9a-f]{64}$/.test(f.split('/').pop()!))).toBe(true);
      for (const file of files) {
        const bytes = readFileSync(file).toString('latin1');
        for (const secret of secrets) expect(bytes.includes(secret), `${secret} found in ${file}`).toBe(false);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('a Move of a two-repository workspace', () => {
  it(
    'is blocked on the dirty repository only, then moves both repositories to their exact commits',
    async () => {
      const { laptop, desktop, sandbox } = world;
      const workspace = join(laptop.workspaceRoot, 'multi');
      mkdirSync(workspace);
      const api = sandbox.clone(sandbox.makeOrigin('api'), join(workspace, 'api'));
      const web = sandbox.clone(sandbox.makeOrigin('web'), join(workspace, 'web'));
      const apiCommit = sandbox.commitFile(api, 'server.ts', 'export {};\n', 'Add the server');
      const webCommit = sandbox.commitFile(web, 'page.ts', 'export {};\n', 'Add the page');
      sandbox.push(api);
      sandbox.push(web);
      const session = await startDemoSession(laptop, workspace);
      await waitEligible(laptop, session.id, 'desktop');
      const desktopId = await deviceId(desktop);

      sandbox.writeFile(web, 'draft.txt', 'uncommitted\n');
      const blocked = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      if (blocked.ok || !('report' in blocked)) throw new Error('expected a blocked report');
      expect(blocked.report.blockers.map((b) => [b.code, b.repo])).toEqual([['dirty_tree', web]]);
      rmSync(join(web, 'draft.txt'));

      const moved = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      expect(moved.ok).toBe(true);
      const onDesktop = await waitSession(
        desktop,
        session.id,
        'the two-repo move to complete',
        (d) => d.isOwner && d.lastHandoff?.state === 'completed' && d.inputBlock === null,
      );
      expect(onDesktop.generation).toBe(2);
      expect(head(join(desktop.workspaceRoot, 'api'))).toBe(apiCommit);
      expect(head(join(desktop.workspaceRoot, 'web'))).toBe(webCommit);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('two Move requests racing for one session', () => {
  it(
    'lets exactly one win; the other is refused and the winner completes',
    async () => {
      const { laptop, desktop } = world;
      const session = await startDemoSession(laptop, world.repo, 'Race me');
      await waitEligible(laptop, session.id, 'desktop');
      const desktopId = await deviceId(desktop);
      const results = await Promise.all(
        [1, 2].map(() => laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId })),
      );
      const winners = results.filter((r) => r.ok);
      expect(winners).toHaveLength(1);
      const loser = results.find((r) => !r.ok)!;
      const loserCode = 'report' in loser ? loser.report.blockers.map((b) => b.code) : [loser.ok ? '' : loser.code];
      expect(loserCode).toContain('handoff_in_progress');
      const onDesktop = await waitSession(
        desktop,
        session.id,
        'the winning move to complete',
        (d) => d.isOwner && d.lastHandoff?.state === 'completed',
      );
      expect(onDesktop.generation).toBe(2);
      const history = await desktop.client.call('handoffHistory', { sessionId: session.id });
      expect(history.map((h) => h.state)).toEqual(['completed']);
    },
    TEST_TIMEOUT_MS,
  );
});
