/**
 * Integration: a checkpoint body tampered with in the backend's blob store. The target must abort
 * activation before any provider process starts (the stand-in `claude` logs every invocation),
 * cancel with the reason, keep ownership and show the session as needing attention. The Claude
 * transcript is grown so that the tampered byte lies in the second half of its part, which the target
 * rewrites into its private staging folder as it downloads: that folder is removed, and nothing
 * reaches the desktop's Claude projects folder until the intact body is activated.
 */
import { readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standInSandbox, type StandInSandbox } from '../../dev-env/stand-ins/stand-ins.ts';
import { growClaudeTranscript } from '../../dev-env/large-claude-transcript.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { projectSlug } from '../providers/claude-code/paths.ts';
import { backendBlobFiles, deviceId, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';

/** Real processes on a busy 2-core machine: give each test room beyond the default. */
const TEST_TIMEOUT_MS = 120_000;

let world: TwoDevices;
/** The session the first test moves to the desktop (the second moves it back). */
let movedSessionId = '';
let laptopProvider: StandInSandbox;
let desktopProvider: StandInSandbox;

/** Every file under `dir` (recursively), relative to it; none when it does not exist. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)));
  } catch {
    return [];
  }
}

beforeAll(async () => {
  laptopProvider = await standInSandbox('laptop', { BATON_STANDIN_DELAY_MS: '3500' });
  desktopProvider = await standInSandbox('desktop');
  world = await startTwoDevices({
    env: { BATON_PREPARE_TIMEOUT_MS: '20000', BATON_TURN_WAIT_MS: '10000' },
    laptopEnv: laptopProvider.env,
    desktopEnv: desktopProvider.env,
  });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
  await laptopProvider?.cleanup();
  await desktopProvider?.cleanup();
});

describe('a tampered checkpoint', () => {
  it(
    'aborts activation before any provider process starts; the target keeps ownership, needs attention, and Retry activation resumes once the body is intact',
    async () => {
      const { laptop } = world;
      const session = await laptop.client.take('startSession', {
        workspace: world.repo,
        provider: 'claude-code',
        prompt: 'Fix the flaky parser test',
      });
      movedSessionId = session.id;
      await waitSession(laptop, session.id, 'the first Claude turn', (d) => d.transcript.some((e) => e.role === 'assistant'));
      // The Claude transcript grown to 3 MiB: its part is nearly all of the checkpoint body.
      const laptopProjects = join(laptopProvider.env.CLAUDE_CONFIG_DIR!, 'projects', projectSlug(realpathSync(world.repo)));
      const [transcriptFile] = readdirSync(laptopProjects).filter((f) => f.endsWith('.jsonl'));
      if (transcriptFile === undefined) throw new Error('the stand-in wrote no Claude transcript');
      const claudeSession = transcriptFile.slice(0, -'.jsonl'.length);
      await growClaudeTranscript(join(laptopProjects, transcriptFile), {
        sessionId: claudeSession,
        cwd: realpathSync(world.repo),
        bytes: 3 << 20,
      });
      await waitEligible(laptop, session.id, 'desktop');

      // Keep a turn running so the source stays in source-quiescing while the target goes away.
      expect(await laptop.client.call('sendMessage', { sessionId: session.id, text: 'keep going' })).toEqual({ ok: true });
      const moved = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: await deviceId(world.desktop) });
      if (!moved.ok) throw new Error(JSON.stringify(moved));
      const stateOnLaptop = async () => (await laptop.client.call('getSession', { sessionId: session.id }))?.activeHandoff?.state;
      await waitFor('source-quiescing', async () => ((await stateOnLaptop()) === 'source-quiescing' ? true : undefined), 20_000, 50);
      await world.desktop.process.stop();
      await waitFor(
        'the checkpoint upload',
        async () => ((await stateOnLaptop()) === 'source-relinquished-and-checkpointed' ? true : undefined),
        20_000,
        50,
      );

      const [blob] = backendBlobFiles(world.backendData);
      if (blob === undefined) throw new Error('no checkpoint blob stored');
      const bytes = readFileSync(blob);
      expect(bytes.length).toBeGreaterThan(3 << 20);
      const tamperAt = Math.floor(bytes.length * 0.75);
      bytes[tamperAt]! ^= 0x01;
      writeFileSync(blob, bytes);

      const desktop = await world.startDevice({
        name: 'desktop',
        profile: world.desktop.profile,
        workspaceRoot: world.desktop.workspaceRoot,
        env: world.desktop.env,
      });
      world.desktop = desktop;
      const detail = await waitSession(desktop, session.id, 'the target to abort activation', (d) => d.lastHandoff?.state === 'cancelled');
      expect(detail.lastHandoff?.history.map((h) => h.state)).toEqual([
        'requested',
        'target-prepared',
        'source-quiescing',
        'source-relinquished-and-checkpointed',
        'ownership-transferred',
        'target-activating',
        'cancelled',
      ]);
      expect(detail.lastHandoff?.cancelReason?.code).toBe('digest_mismatch');
      expect(detail).toMatchObject({ isOwner: true, generation: 2, condition: 'needs-attention' });
      expect(detail.inputBlock?.code).toBe('needs_attention');

      const retried = await desktop.client.call('retryActivation', { sessionId: session.id });
      expect(retried).toMatchObject({ ok: false, code: 'digest_mismatch' });

      const providerRuns = (await desktopProvider.invocations()).filter((i) => !i.argv.includes('--version'));
      expect(providerRuns).toEqual([]);
      // What the target staged of the tampered body is gone, and Claude was given nothing.
      const desktopProjects = join(desktopProvider.env.CLAUDE_CONFIG_DIR!, 'projects');
      expect(filesUnder(desktopProjects)).toEqual([]);
      expect(filesUnder(world.desktop.profile).filter((f) => f.includes(session.id) && f.includes('exports'))).toEqual([]);
      // The stand-in did run on the laptop, so the log is a real witness.
      expect((await laptopProvider.invocations()).some((i) => i.argv.includes('-p'))).toBe(true);
      const onLaptop = await waitSession(laptop, session.id, 'the laptop to see the transfer', (d) => !d.isOwner);
      expect(onLaptop.generation).toBe(2);

      // With the body restored, Retry activation resumes the session on the desktop.
      // Each activation logs the files its provider's rewriter staged.
      const stagedLogs = () => desktop.process.stderr().match(/staging transcript of claude-code rewritten/g)?.length ?? 0;
      const stagedBefore = stagedLogs();
      expect(stagedBefore).toBeGreaterThan(0);
      bytes[tamperAt]! ^= 0x01;
      writeFileSync(blob, bytes);
      expect(await desktop.client.call('retryActivation', { sessionId: session.id })).toEqual({ ok: true });
      const active = await waitSession(desktop, session.id, 'the retried activation', (d) => d.inputBlock === null);
      expect(active).toMatchObject({ isOwner: true, generation: 2, condition: 'owned' });
      expect(await desktop.client.call('sendMessage', { sessionId: session.id, text: 'carry on here' })).toEqual({ ok: true });
      await waitFor(
        'the resumed Claude session to run on the desktop',
        async () => {
          const runs = (await desktopProvider.invocations()).filter((i) => i.argv.includes('-p'));
          return runs.some((i) => i.argv.includes('--resume')) ? true : undefined;
        },
        20_000,
        100,
      );
      // The intact body's transcript was staged already moved to the desktop's clone and renamed into place.
      const imported = filesUnder(desktopProjects).filter((f) => f.endsWith(`${claudeSession}.jsonl`));
      expect(imported).toHaveLength(1);
      const cwds = new Set(
        readFileSync(join(desktopProjects, imported[0]!), 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => (JSON.parse(l) as { cwd?: string }).cwd)
          .filter((cwd) => cwd !== undefined),
      );
      expect(cwds.size).toBeGreaterThan(0);
      expect([...cwds].every((cwd) => cwd.startsWith(realpathSync(world.desktop.workspaceRoot)))).toBe(true);
      // The intact body's activation staged the transcript through Claude's rewriter (the staging folder is pruned once done).
      expect(stagedLogs()).toBe(stagedBefore + 1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'moves back a session too large to seal ahead with source-quiescing recorded on its own, before the checkpoint is taken',
    async () => {
      const { laptop, desktop } = world;
      // Idle: the desktop's turn is over, so only the checkpoint's size keeps quiescing a step of its own.
      await waitSession(
        desktop,
        movedSessionId,
        'the desktop turn to end',
        (d) => d.agents.length > 0 && d.agents.every((a) => a.status !== 'starting' && a.status !== 'running'),
      );
      await waitEligible(desktop, movedSessionId, 'laptop');
      const moved = await desktop.client.call('startMove', { sessionId: movedSessionId, targetDeviceId: await deviceId(laptop) });
      if (!moved.ok) throw new Error(JSON.stringify(moved));
      const back = await waitSession(
        laptop,
        movedSessionId,
        'the move back',
        (d) => d.isOwner && d.lastHandoff?.id === moved.value.handoffId && d.lastHandoff.state === 'completed',
      );
      const history = back.lastHandoff!.history;
      const at = (state: string) => history.find((h) => h.state === state)!.at;
      expect(at('source-quiescing')).toBeLessThan(at('source-relinquished-and-checkpointed'));
      expect(desktop.process.stderr()).not.toMatch(new RegExp(`checkpoint of ${moved.value.handoffId}: \\d+ bytes sealed ahead`));
    },
    TEST_TIMEOUT_MS,
  );
});
