/**
 * Integration: the target opens the checkpoint (download, digest, unseal, pin, drift) ahead, once
 * the session is its own, and resumes the provider only in the target-activating step
 * (checkpoint-openings.ts). The target is held before its resume (gate point `checkpoint-opened`): by then the
 * download has run while the provider is untouched. A pin refused ahead (the target's clone changed)
 * cancels the move with the provider untouched and nothing left in staging. Real backend and device processes,
 * real git, the stand-in `claude` (its invocation log and config folder witness the provider); one
 * world per case. The checkpoint itself is received into private staging earlier still, once the
 * source has relinquished: a move cancelled before the claim leaves nothing staged.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HandoffProgressView } from '../../shared/device-api.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { standInSandbox, type StandInSandbox } from '../../dev-env/stand-ins/stand-ins.ts';
import { deviceId, startTwoDevices, waitEligible, waitSession, type DeviceHandle, type TwoDevices } from '../../dev-env/two-devices.ts';
import { holdAt } from '../../dev-env/step-holds.ts';

/** Real processes on a busy 2-core machine: give each test room beyond the default. */
const TEST_TIMEOUT_MS = 150_000;

let world: TwoDevices | undefined;
let standIns: StandInSandbox[] = [];

afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  await Promise.all(standIns.map((s) => s.cleanup()));
  standIns = [];
});

/** Where the target stages the handoff's checkpoint (LocalState.exportsDir). */
function stagingDir(device: DeviceHandle, sessionId: string, handoffId: string): string {
  return join(device.profile, 'runtime', 'exports', sessionId, handoffId);
}

/** The handoff's download progress on `device`, as heard. */
function downloads(heard: HandoffProgressView[], handoffId: string): HandoffProgressView[] {
  return heard.filter((p) => p.handoffId === handoffId && p.step === 'download');
}

/** Waits (polling every 50 ms, up to 30 s) until the desktop reported `handoffId`'s checkpoint downloaded whole. */
function downloadedWhole(heard: HandoffProgressView[], handoffId: string, what: string): Promise<true> {
  return waitFor(what, async () => (downloads(heard, handoffId).some((p) => p.percent === 100) ? true : undefined), 30_000, 50);
}

/** What the desktop's `claude` has been touched with: its runs (not `--version`) and the files in its config folder. */
async function providerTouches(provider: StandInSandbox): Promise<string[]> {
  const runs = (await provider.invocations()).filter((i) => !i.argv.includes('--version')).map((i) => i.argv.join(' '));
  const dir = provider.env.CLAUDE_CONFIG_DIR!;
  const files = existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl')) : [];
  return [...runs, ...files];
}

/** A Claude session on the laptop, eligible to move, with the desktop's progress events collected. */
async function claudeWorld(): Promise<{
  w: TwoDevices;
  sessionId: string;
  desktopId: string;
  heard: HandoffProgressView[];
  desktopProvider: StandInSandbox;
}> {
  const laptopProvider = await standInSandbox('laptop');
  const desktopProvider = await standInSandbox('desktop');
  standIns = [laptopProvider, desktopProvider];
  const w = await startTwoDevices({ laptopEnv: laptopProvider.env, desktopEnv: desktopProvider.env });
  world = w;
  const session = await w.laptop.client.take('startSession', {
    workspace: w.repo,
    provider: 'claude-code',
    prompt: 'Fix the flaky parser test',
  });
  await waitSession(w.laptop, session.id, 'the first Claude turn', (d) => d.transcript.some((e) => e.role === 'assistant'));
  await waitEligible(w.laptop, session.id, 'desktop');
  const heard: HandoffProgressView[] = [];
  w.desktop.client.on('handoffProgress', (p: HandoffProgressView) => heard.push(p));
  return { w, sessionId: session.id, desktopId: await deviceId(w.desktop), heard, desktopProvider };
}

describe('activation begun ahead', () => {
  it(
    'has downloaded and unsealed the checkpoint before the target-activating step resumes the provider',
    async () => {
      const { w, sessionId, desktopId, heard, desktopProvider } = await claudeWorld();
      const releaseResume = holdAt(w.desktop, 'checkpoint-opened');
      const moved = await w.laptop.client.call('startMove', { sessionId, targetDeviceId: desktopId });
      if (!moved.ok) throw new Error(JSON.stringify(moved));
      const handoffId = moved.value.handoffId;

      // Held before the resume, the checkpoint has been received whole: begun ahead, not by the held step.
      await downloadedWhole(heard, handoffId, 'the download begun ahead');
      await waitFor('the early log line', async () =>
        w.desktop.process.stderr().includes(`handoff ${handoffId}: download checkpoint:`) ? true : undefined,
      );
      // Received since the source relinquished: the target reaches target-activating and stays there, held.
      await waitSession(w.desktop, sessionId, 'the held target-activating step', (d) => d.activeHandoff?.state === 'target-activating');
      expect(heard.filter((p) => p.handoffId === handoffId && p.step === 'import')).toEqual([]);
      expect(await providerTouches(desktopProvider)).toEqual([]);
      // The provider's files are staged for the resume.
      expect(existsSync(stagingDir(w.desktop, sessionId, handoffId))).toBe(true);

      releaseResume();
      const done = await waitSession(
        w.desktop,
        sessionId,
        'the move to complete',
        (d) => d.isOwner && d.lastHandoff?.state === 'completed',
      );
      expect(done).toMatchObject({ isOwner: true, generation: 2, condition: 'owned', inputBlock: null });
      // Opened once: the held step took what was begun ahead instead of downloading again.
      expect(downloads(heard, handoffId).filter((p) => p.doneBytes === 0)).toHaveLength(1);
      // Resumed in the step: the session's Claude file now sits in the desktop's config folder.
      expect((await providerTouches(desktopProvider)).some((f) => f.endsWith(`.jsonl`))).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'cancels when the pin begun ahead is refused: the provider untouched, staging cleaned',
    async () => {
      const { w, sessionId, desktopId, heard, desktopProvider } = await claudeWorld();
      // The desktop already has a clean clone of the origin: the pin will use it.
      const clone = w.sandbox.clone(w.origin, join(w.desktop.workspaceRoot, 'app'));
      const releaseClaim = holdAt(w.desktop, 'target-step-at-source-relinquished-and-checkpointed');
      const releaseResume = holdAt(w.desktop, 'checkpoint-opened');
      const moved = await w.laptop.client.call('startMove', { sessionId, targetDeviceId: desktopId });
      if (!moved.ok) throw new Error(JSON.stringify(moved));
      const handoffId = moved.value.handoffId;
      await waitSession(
        w.laptop,
        sessionId,
        'the checkpoint upload',
        (d) => d.activeHandoff?.state === 'source-relinquished-and-checkpointed',
      );

      // After the prepare step checked it, the clone gets an uncommitted change: the pin will refuse it.
      const [tracked] = execFileSync('git', ['ls-files'], { cwd: clone, encoding: 'utf8' }).split('\n');
      if (!tracked) throw new Error(`no tracked file in ${clone}`);
      appendFileSync(join(clone, tracked), 'changed on the desktop\n');
      releaseClaim();

      // The early work downloaded, unsealed and tried the pin while the step that resumes is still held.
      await downloadedWhole(heard, handoffId, 'the download begun ahead');
      await waitSession(w.desktop, sessionId, 'the held target-activating step', (d) => d.activeHandoff?.state === 'target-activating');
      expect(await providerTouches(desktopProvider)).toEqual([]);
      await waitFor('the refused checkpoint to leave staging', async () =>
        existsSync(stagingDir(w.desktop, sessionId, handoffId)) ? undefined : true,
      );

      releaseResume();
      const detail = await waitSession(w.desktop, sessionId, 'the cancelled move', (d) => d.lastHandoff?.state === 'cancelled');
      expect(detail.lastHandoff?.cancelReason?.code).toBe('target_workspace_dirty');
      expect(detail).toMatchObject({ isOwner: true, generation: 2, condition: 'needs-attention' });
      expect(heard.filter((p) => p.handoffId === handoffId && p.step === 'import')).toEqual([]);
      expect(await providerTouches(desktopProvider)).toEqual([]);
      expect(existsSync(stagingDir(w.desktop, sessionId, handoffId))).toBe(false);
      // Opened once, ahead: the step used that refusal and did not download again.
      expect(downloads(heard, handoffId).filter((p) => p.doneBytes === 0)).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'receives the checkpoint into staging while the claim is held, and removes it when the move is cancelled before the claim',
    async () => {
      const { w, sessionId, desktopId, heard, desktopProvider } = await claudeWorld();
      const releaseClaim = holdAt(w.desktop, 'sending-ownership-transferred+target-activating');
      const moved = await w.laptop.client.call('startMove', { sessionId, targetDeviceId: desktopId });
      if (!moved.ok) throw new Error(JSON.stringify(moved));
      const handoffId = moved.value.handoffId;

      // The source has relinquished; the target, held before its claim, has the checkpoint staged already.
      await downloadedWhole(heard, handoffId, 'the download begun once the source relinquished');
      const held = await w.desktop.client.call('getSession', { sessionId });
      expect(held?.activeHandoff?.state).toBe('source-relinquished-and-checkpointed');
      expect(held?.isOwner).toBe(false);
      expect(existsSync(stagingDir(w.desktop, sessionId, handoffId))).toBe(true);
      expect(await providerTouches(desktopProvider)).toEqual([]);

      // Still cancellable: ownership has not moved. The target never claims, and drops what it staged.
      const cancelled = await w.laptop.client.call('cancelMove', { sessionId });
      expect(cancelled.ok).toBe(true);
      releaseClaim();
      await waitFor('the staged checkpoint to be removed', async () =>
        existsSync(stagingDir(w.desktop, sessionId, handoffId)) ? undefined : true,
      );
      const back = await waitSession(w.laptop, sessionId, 'the laptop to own the session again', (d) => d.isOwner && d.inputBlock === null);
      expect(back).toMatchObject({ generation: 1, lastHandoff: { state: 'cancelled' } });
      expect(await providerTouches(desktopProvider)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
