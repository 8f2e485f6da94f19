/**
 * The source's part of a handoff: arm the prepare deadline, quiesce (durably refuse input, wait
 * for or interrupt the provider's turn), re-check readiness, build + seal + upload the checkpoint,
 * and afterwards either give the session up (transfer) or take input again (cancelled before it).
 */
import { rm } from 'node:fs/promises';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { ProviderSession } from '../../shared/provider.ts';
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import { detectedVersion } from '../../shared/cli-version.ts';
import type { BackendPort, Clock, GitPort, PacketPort, ProviderPort, SealPort } from '../runtime/ports.ts';
import type { ProgressSink } from '../runtime/progress-sink.ts';
import type { SessionService } from '../runtime/session-service.ts';
import { CHECKPOINT_FORMAT, type Checkpoint } from './checkpoint.ts';
import { sealCheckpointToFile } from './checkpoint-transfer.ts';
import { transferred, type HandoffDriver, type Step } from './coordinator.ts';
import type { HandoffConfig } from './handoff-config.ts';
import { currentFiles } from './resume-files.ts';
import { stillDueAfterHold } from './test-hold.ts';
import { mergeTranscripts } from './transcript-merge.ts';

/** What the source's steps use, and nothing more. */
export interface SourceStepDeps {
  selfId: string;
  selfName: string;
  state: Pick<LocalState, 'session' | 'readSession' | 'transcript' | 'progress' | 'updateProgress' | 'scratchFile'>;
  sessions: Pick<SessionService, 'provider' | 'setInputBlock' | 'markMoved' | 'resumeOwned'>;
  git: Pick<GitPort, 'repos' | 'sourceReadiness'>;
  packets: Pick<PacketPort, 'build'>;
  seal: Pick<SealPort, 'startCheckpointSeal'>;
  backend: Pick<BackendPort, 'putBlobFile'>;
  providers: Pick<ProviderPort, 'list'>;
  config: Pick<HandoffConfig, 'prepareTimeoutMs' | 'claimTimeoutMs' | 'turnWaitMs' | 'testHoldDir'>;
  clock: Clock;
  log(message: string): void;
  /** Where the checkpoint upload reports how far it got. */
  progress: ProgressSink;
}

const QUIESCING = { code: 'quiescing', message: 'The session is moving to another device; input is paused.' } as const;

/** Waits until the provider's turn ends or `ms` pass; interrupts it when still running. */
export async function settleTurn(provider: ProviderSession, ms: number): Promise<'idle' | 'ended' | 'interrupted'> {
  if (!provider.isTurnActive()) return 'idle';
  const ended = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, ms);
    const unsubscribe = provider.onEvent((event) => {
      if ((event.type === 'turn-ended' && !provider.isTurnActive()) || event.type === 'exited') {
        clearTimeout(timer);
        unsubscribe();
        resolve(true);
      }
    });
    if (!provider.isTurnActive()) {
      clearTimeout(timer);
      unsubscribe();
      resolve(true);
    }
  });
  if (ended) return 'ended';
  await provider.interrupt();
  return 'interrupted';
}

/** The checkpoint of `session` at its repositories' current commits. */
async function buildCheckpoint(
  deps: SourceStepDeps,
  handoff: Handoff,
  session: LocalSession,
  provider: ProviderSession | undefined,
): Promise<Checkpoint> {
  const { git, packets, selfId, selfName, clock } = deps;
  const transcript = deps.state.transcript(session.id);
  const firstPrompt = transcript.find((e) => e.role === 'user')?.text ?? session.title;
  const lastAssistant = transcript.findLast((e) => e.role === 'assistant')?.text ?? '';
  const prose = {
    goal: firstPrompt.slice(0, 2000),
    currentState: lastAssistant.slice(0, 2000),
    nextAction: 'Continue the session on the target device.',
  };
  // Git facts, packets and the provider export are independent reads: take them together.
  const [repos, exported, detected] = await Promise.all([
    git.repos(session),
    provider?.capabilities.checkpointImport ? provider.exportResumeData() : Promise.resolve(null),
    deps.providers.list(),
  ]);
  const built = await Promise.all(
    repos.map(async (repo) => {
      try {
        return [{ relPath: repo.relPath, packet: await packets.build(repo.path, prose, session.provider) }];
      } catch (error) {
        deps.log(`packet for ${repo.relPath} skipped: ${(error as Error).message}`);
        return [];
      }
    }),
  );
  const packetList: Checkpoint['packets'] = built.flat();
  // The export names its files; one kept from before is carried only while its files are still there.
  const providerResume = exported?.ok
    ? exported.value
    : await currentFiles(session.providerResume as Checkpoint['providerResume'], (why) =>
        deps.log(`provider export of ${session.id} not carried: ${why}`),
      );
  const snapshot = provider?.snapshot();
  return {
    format: CHECKPOINT_FORMAT,
    sessionId: session.id,
    handoffId: handoff.id,
    createdAt: clock(),
    sourceDeviceId: selfId,
    sourceDeviceName: selfName,
    meta: {
      title: session.title,
      provider: session.provider,
      prompt: firstPrompt,
      permission: session.permission,
      providerVersion: detectedVersion(detected, session.provider),
    },
    repos: repos.map((r) => ({
      relPath: r.relPath,
      remoteUrl: r.remoteUrl,
      branch: r.branch,
      commit: r.head ?? '',
      mergeBase: r.mergeBase,
    })),
    providerResume,
    packets: packetList,
    agents: snapshot?.agents ?? session.agents,
    // The whole transcript as this device keeps it (Baton's notes and entries of earlier providers
    // included), with anything the running provider holds that it has not reported yet.
    transcript: snapshot && snapshot.transcript.length > 0 ? mergeTranscripts(transcript, snapshot.transcript) : [...transcript],
  };
}

/** source-quiescing: re-check readiness, then checkpoint, seal, upload and relinquish. */
async function checkpointStep(deps: SourceStepDeps, driver: HandoffDriver, handoff: Handoff): Promise<void> {
  const { state, sessions, git, seal, backend } = deps;
  const session = state.session(handoff.sessionId);
  if (!session) {
    await driver.cancel(handoff, { code: 'session_unknown', message: 'The source no longer knows this session.' });
    return;
  }
  const provider = sessions.provider(session.id);
  if (provider) await settleTurn(provider, deps.config.turnWaitMs);
  // The move may have been cancelled while the turn ran: then there is nothing to checkpoint.
  if (driver.get(handoff.id)?.state !== 'source-quiescing') return;
  let checkpoint = state.progress(handoff.id)?.checkpoint ?? null;
  if (checkpoint === null) {
    const started = deps.clock();
    const report = await git.sourceReadiness(session);
    if (!report.ready) {
      const first = report.blockers[0]!;
      await driver.cancel(handoff, { code: first.code, message: `${first.message} ${first.fix}`.slice(0, 2000) }, report.blockers);
      return;
    }
    const built = await buildCheckpoint(deps, handoff, state.readSession(session.id)!, provider);
    // Sealed as it is written, into a file hashed on the way, then streamed up: never held whole.
    // Under the key version the handoff names (the target checked it holds it), whatever rotated since.
    const sealer = seal.startCheckpointSeal(session.id, handoff.id, handoff.keyVersion ?? undefined);
    const path = state.scratchFile(`${handoff.id}.sealed`);
    try {
      const file = await sealCheckpointToFile(sealer, built, path);
      const sealedAt = deps.clock();
      const report = (done: number) =>
        deps.progress({
          handoffId: handoff.id,
          sessionId: session.id,
          step: 'upload',
          label: 'checkpoint',
          doneBytes: done,
          totalBytes: file.size,
          percent: file.size === 0 ? 100 : (done / file.size) * 100,
        });
      report(0);
      const put = await backend.putBlobFile(file, report);
      if (!put.ok) {
        if (put.code === 'body_too_large') {
          await driver.cancel(handoff, {
            code: 'checkpoint_too_large',
            message: `The sealed checkpoint (${file.size} bytes) is over the sync backend's limit: ${put.message}.`,
          });
          return;
        }
        throw new Error(`checkpoint upload failed: ${put.code} ${put.message}`);
      }
      checkpoint = { digest: file.sha256, size: file.size };
      state.updateProgress(handoff.id, (p) => {
        p.checkpoint = checkpoint;
      });
      deps.log(
        `checkpoint of ${handoff.id}: ${file.size} bytes built and sealed in ${sealedAt - started} ms, uploaded in ${deps.clock() - sealedAt} ms`,
      );
    } finally {
      await rm(path, { force: true });
    }
  }
  await driver.transition(handoff, 'source-relinquished-and-checkpointed', { checkpoint });
}

/** The source resolves an ended handoff: moved away, or back to accepting input. */
async function onEnded(deps: SourceStepDeps, driver: HandoffDriver, handoff: Handoff): Promise<void> {
  const { sessions, state } = deps;
  if (handoff.state === 'completed' || transferred(handoff)) {
    await sessions.markMoved(handoff.sessionId);
  } else {
    const session = state.session(handoff.sessionId);
    if (session?.inputBlock?.code === 'quiescing') sessions.setInputBlock(handoff.sessionId, null);
    if (session && !sessions.provider(session.id)) await sessions.resumeOwned();
  }
  driver.finish(handoff.id);
}

/** The source's step for the handoff's current state. */
export function sourceStep(deps: SourceStepDeps): Step {
  const { config, sessions } = deps;
  return async (handoff, driver) => {
    switch (handoff.state) {
      case 'requested': {
        const progress = deps.state.progress(handoff.id)!;
        driver.at(`${handoff.id}:prepare`, progress.seenAt + config.prepareTimeoutMs, async () => {
          const now = driver.get(handoff.id);
          if (now?.state === 'requested') {
            await driver.cancel(now, {
              code: 'target_timeout',
              message: `The target did not prepare within ${Math.round(config.prepareTimeoutMs / 1000)} s.`,
            });
          }
        });
        return;
      }
      case 'target-prepared':
        driver.clearTimer(`${handoff.id}:prepare`);
        if (!(await stillDueAfterHold(config.testHoldDir, 'quiesce', driver, handoff))) return;
        sessions.setInputBlock(handoff.sessionId, QUIESCING);
        await driver.transition(handoff, 'source-quiescing');
        return;
      case 'source-quiescing':
        sessions.setInputBlock(handoff.sessionId, QUIESCING);
        if (!(await stillDueAfterHold(config.testHoldDir, 'checkpoint', driver, handoff))) return;
        await checkpointStep(deps, driver, handoff);
        return;
      case 'source-relinquished-and-checkpointed':
        driver.at(`${handoff.id}:claim`, deps.clock() + config.claimTimeoutMs, async () => {
          const now = driver.get(handoff.id);
          if (now?.state === 'source-relinquished-and-checkpointed') {
            await driver.cancel(now, { code: 'target_timeout', message: 'The target did not take over the checkpoint in time.' });
          }
        });
        return;
      case 'ownership-transferred':
      case 'target-activating':
        driver.clearTimer(`${handoff.id}:claim`);
        await sessions.markMoved(handoff.sessionId);
        return;
      case 'completed':
      case 'cancelled':
        await onEnded(deps, driver, handoff);
        return;
    }
  };
}
