/**
 * The source's part of a handoff: arm the prepare deadline, quiesce (durably refuse input, wait
 * for or interrupt the provider's turn), re-check readiness, build + seal + upload the checkpoint,
 * and afterwards either give the session up (transfer) or take input again (cancelled before it).
 */
import { rm } from 'node:fs/promises';
import { INLINE_CHECKPOINT_MAX_BYTES, type CancelReason, type CheckpointRef, type Handoff } from '../../shared/api/handoffs.ts';
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import type { BackendLinkPort, BackendPort } from '../ports/backend.ts';
import type { Clock } from '../ports/clock.ts';
import type { GitPort } from '../ports/git.ts';
import type { PacketPort, ProviderPort } from '../ports/providers.ts';
import type { SealPort } from '../ports/seal.ts';
import type { ProgressSink } from '../ports/progress.ts';
import type { SessionsPort } from '../ports/sessions.ts';
import type { MoveSettingsPort } from '../ports/settings.ts';
import { parkCarriedWork, readForCheckpoint } from './carried-work.ts';
import { sealSpeculativeCheckpoint, timelessDigest, type SpeculativeCheckpoint } from './speculative-checkpoint.ts';
import { buildCheckpoint } from './checkpoint-build.ts';
import { CHECKPOINT_MEMORY_BYTES, sealCheckpoint, uploadSealed } from './checkpoint-transfer.ts';
import { transferred, type HandoffDriver, type Step } from './coordinator.ts';
import type { HandoffConfig } from './handoff-config.ts';
import { settleTurn } from './turn-settle.ts';
import { uploadProgress } from './progress-reports.ts';
import { checkpointCollected } from './transition-refused.ts';

/** What the source's steps use, and nothing more. */
export interface SourceStepDeps {
  selfId: string;
  selfName: string;
  state: Pick<
    LocalState,
    | 'session'
    | 'readSession'
    | 'transcriptCount'
    | 'newestTranscript'
    | 'transcriptEntries'
    | 'findTranscriptEntry'
    | 'findLastTranscriptEntry'
    | 'progress'
    | 'updateProgress'
    | 'scratchFile'
    | 'settled'
  >;
  sessions: Pick<SessionsPort, 'provider' | 'setInputBlock' | 'markMoved' | 'resumeOwned' | 'denyPermissionsForMove'>;
  git: Pick<GitPort, 'checkpointRead' | 'checkpointReadOnRecentReadiness' | 'buildCapsule' | 'parkCarried'>;
  packets: Pick<PacketPort, 'build'>;
  seal: Pick<SealPort, 'startCheckpointSeal'>;
  backend: Pick<BackendPort, 'putBlob' | 'putBlobFile'>;
  providers: Pick<ProviderPort, 'list'>;
  config: Pick<HandoffConfig, 'prepareTimeoutMs' | 'claimTimeoutMs' | 'turnWaitMs' | 'inlineCheckpointBytes'>;
  /** Whether the backend answers this device's calls, for a timeout's reason. */
  link: Pick<BackendLinkPort, 'longestWait'>;
  /** This device's move settings: how much carried work it sends. */
  settings: Pick<MoveSettingsPort, 'get'>;
  clock: Clock;
  log(message: string): void;
  /** Where the checkpoint upload reports how far it got. */
  progress: ProgressSink;
}

/** A call of this device waiting this long for the backend's answer means the backend is stalled too. */
export const BACKEND_STALL_MS = 3000;

/**
 * The reason a move is cancelled when the target did not do its part in time: `didNot` what, and,
 * when a call of this device has waited `backendWaitMs` for the backend's answer, that the backend
 * may be the cause (a stopped backend leaves the target's answer waiting just the same).
 */
export function targetTimeout(didNot: string, backendWaitMs: number): CancelReason {
  const stalled =
    backendWaitMs >= BACKEND_STALL_MS
      ? ` The sync backend has not answered a call of this device for ${Math.round(backendWaitMs / 1000)} s either: it, rather than the target, may be what held the move up.`
      : '';
  return { code: 'target_timeout', message: `The target did not ${didNot}.${stalled}` };
}

/** The largest sealed checkpoint sent in its relinquish (handoff-config.ts). */
const inlineMax = (config: Pick<HandoffConfig, 'inlineCheckpointBytes'>) => config.inlineCheckpointBytes ?? INLINE_CHECKPOINT_MAX_BYTES;

/** Resolves once this turn of the event loop is over (what it began, such as a request, is on its way). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const QUIESCING = { code: 'quiescing', message: 'The session is moving to another device; input is paused.' } as const;

/**
 * A checkpoint taken, sealed and uploaded (or to travel in the relinquish: `inlineBody`); the readiness
 * report that refused it; a reason to cancel (over the backend's limit); the move ended first; or what went wrong.
 */
type CheckpointAttempt =
  | { ok: true; checkpoint: CheckpointRef; inlineBody?: string }
  | { ok: false; report: ReadinessReport }
  | { ok: 'cancel'; reason: { code: string; message: string } }
  | { ok: 'ended' }
  | { ok: 'error'; error: Error };

/**
 * Waits for the provider's turn to end, re-checks readiness, then builds, seals and uploads the
 * checkpoint. Reads and a content-addressed upload only: nothing changes hands until its transition.
 * A speculative checkpoint that stands, of at most `inlineBytes`, is not uploaded but handed back to travel in the relinquish.
 */
async function takeCheckpoint(
  deps: SourceStepDeps,
  driver: HandoffDriver,
  handoff: Handoff,
  session: Readonly<LocalSession>,
  speculative?: Promise<SpeculativeCheckpoint | null>,
  inlineBytes = 0,
): Promise<CheckpointAttempt> {
  const { state, sessions, seal, backend } = deps;
  const moving = () => ['target-prepared', 'source-quiescing'].includes(driver.get(handoff.id)?.state ?? '');
  try {
    const provider = sessions.provider(session.id);
    // What the agent asks is denied (it reads that the session moves; the transcript keeps it), so its turn can end.
    await sessions.denyPermissionsForMove(session.id, handoff.targetDeviceId);
    if (provider) await settleTurn(provider, deps.config.turnWaitMs);
    // The move may have been cancelled while the turn ran: then no checkpoint is taken.
    if (!moving()) return { ok: 'ended' };
    const started = deps.clock();
    const path = state.scratchFile(`${handoff.id}.sealed`);
    const transcriptPath = state.scratchFile(`${handoff.id}.transcript`);
    const carryPath = state.scratchFile(`${handoff.id}.carried`);
    try {
      // Readiness again (with the work carried, when the move carries it), and the capsules from that one read.
      const read = await readForCheckpoint(deps, handoff, state.readSession(session.id)!, carryPath);
      if (read.ok !== true) return read;
      const { repos, carried } = read;
      // What it carries, kept to park the source's copy once the target completed: on disk before any transition relies on it.
      if (carried) state.updateProgress(handoff.id, (p) => void (p.carried = carried.carried), false);
      const built = await buildCheckpoint(deps, handoff, state.readSession(session.id)!, provider, repos, transcriptPath, carried?.carry);
      // Sealed speculatively and unchanged since: that upload is this checkpoint (speculative-checkpoint.ts).
      const before = await speculative;
      const stands = before && before.timelessSha256 === (await timelessDigest(built)) ? before : null;
      const inlineBody = stands?.inlineBody(inlineBytes);
      if (stands && inlineBody) return { ok: true, checkpoint: stands.checkpoint, inlineBody };
      if (stands && (await stands.upload())) {
        deps.log(`checkpoint of ${handoff.id}: ${stands.checkpoint.size} bytes, taken ahead while the target prepared and unchanged since`);
        return { ok: true, checkpoint: stands.checkpoint };
      }
      // Sealed as it is written and hashed on the way: a small checkpoint in memory, a large one into a
      // file streamed up from there (never held whole). Under the key version the handoff names (the
      // target checked it holds it), whatever rotated since.
      const sealer = seal.startCheckpointSeal(session.id, handoff.id, handoff.keyVersion ?? undefined);
      const file = await sealCheckpoint(sealer, built, path, CHECKPOINT_MEMORY_BYTES);
      const sealedAt = deps.clock();
      if (!moving()) return { ok: 'ended' };
      const put = await uploadSealed(backend, file, uploadProgress(deps.progress, handoff, file.size));
      if (!put.ok) {
        if (put.code === 'body_too_large') {
          const message = `The sealed checkpoint (${file.size} bytes) is over the sync backend's limit: ${put.message}.`;
          return { ok: 'cancel', reason: { code: 'checkpoint_too_large', message } };
        }
        throw new Error(`checkpoint upload failed: ${put.code} ${put.message}`);
      }
      deps.log(
        `checkpoint of ${handoff.id}: ${file.size} bytes built and sealed in ${sealedAt - started} ms, uploaded in ${deps.clock() - sealedAt} ms`,
      );
      return { ok: true, checkpoint: { digest: file.sha256, size: file.size } };
    } finally {
      await rm(path, { force: true });
      await rm(transcriptPath, { force: true });
      await rm(carryPath, { recursive: true, force: true });
    }
  } catch (error) {
    return { ok: 'error', error: error as Error };
  }
}

/**
 * source-quiescing: re-check readiness, then checkpoint, seal, upload and relinquish. `attempt`: the
 * same work begun once input was refused, while the backend recorded source-quiescing. At
 * target-prepared (a quiescing with nothing to wait for), source-quiescing is entered with the
 * relinquish, in one commit.
 */
async function checkpointStep(
  deps: SourceStepDeps,
  driver: HandoffDriver,
  handoff: Handoff,
  attempt?: Promise<CheckpointAttempt>,
): Promise<void> {
  const { state } = deps;
  const session = state.readSession(handoff.sessionId);
  if (!session) {
    await driver.cancel(handoff, { code: 'session_unknown', message: 'The source no longer knows this session.' });
    return;
  }
  let checkpoint = state.progress(handoff.id)?.checkpoint ?? null;
  let inlineBody: string | undefined;
  if (checkpoint === null) {
    const taken = await (attempt ?? takeCheckpoint(deps, driver, handoff, session));
    if (taken.ok === 'error') throw taken.error;
    // The move may have been cancelled meanwhile: then there is nothing to relinquish.
    if (taken.ok === 'ended' || driver.get(handoff.id)?.state !== handoff.state) return;
    if (taken.ok === 'cancel') {
      await driver.cancel(handoff, taken.reason);
      return;
    }
    if (!taken.ok) {
      const first = taken.report.blockers[0]!;
      await driver.cancel(handoff, { code: first.code, message: `${first.message} ${first.fix}`.slice(0, 2000) }, taken.report.blockers);
      return;
    }
    checkpoint = taken.checkpoint;
    inlineBody = taken.inlineBody;
    // Kept so a retried transition carries the same reference (one uploaded: a retry of one that travels
    // in its transition takes the checkpoint anew). It need not be on disk first: after a crash the
    // backend either has the transition (nothing to retry) or not (a new checkpoint is taken).
    if (inlineBody === undefined) state.updateProgress(handoff.id, (p) => void (p.checkpoint = checkpoint), false);
  }
  const fields = { checkpoint, ...(inlineBody === undefined ? {} : { checkpointBody: inlineBody }) };
  const reported = inlineBody === undefined ? undefined : uploadProgress(deps.progress, handoff, checkpoint.size);
  reported?.(0);
  try {
    if (handoff.state === 'target-prepared')
      await driver.transition(handoff, 'source-quiescing', { continueTo: 'source-relinquished-and-checkpointed', ...fields });
    else await driver.transition(handoff, 'source-relinquished-and-checkpointed', fields);
  } catch (error) {
    // The backend collected the upload before this transition named it: the step, tried again, takes
    // the checkpoint anew and uploads it (the same reference would be refused until the move timed out).
    if (checkpointCollected(error)) {
      deps.log(`checkpoint of ${handoff.id}: the backend no longer holds its upload; taking it again`);
      state.updateProgress(handoff.id, (p) => void (p.checkpoint = null), false);
    }
    throw error;
  }
  if (inlineBody !== undefined)
    deps.log(
      `checkpoint of ${handoff.id}: ${checkpoint.size} bytes, taken ahead while the target prepared and unchanged since, sent in its transition`,
    );
  reported?.(checkpoint.size);
}

/** The source resolves an ended handoff: moved away, or back to accepting input. */
async function onEnded(deps: SourceStepDeps, driver: HandoffDriver, handoff: Handoff): Promise<void> {
  const { sessions, state } = deps;
  if (handoff.state === 'completed' || transferred(handoff)) {
    await sessions.markMoved(handoff.sessionId);
    // Completed: the target has the carried work, so the source's copy goes into its stash (never before).
    if (handoff.state === 'completed') await parkCarriedWork(deps, handoff);
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
  // Checkpoints begun as soon as input was refused (target-prepared), taken by the source-quiescing step once.
  const attempts = new Map<string, Promise<CheckpointAttempt>>();
  // Speculative checkpoints sealed while the target prepares (speculative-checkpoint.ts), for the one begun at target-prepared;
  // `sealed` once one is (so it is small, and the quiescing may be recorded with the relinquish).
  const speculative = new Map<string, { taking: Promise<SpeculativeCheckpoint | null>; sealed: boolean }>();
  return async (handoff, driver) => {
    switch (handoff.state) {
      case 'requested': {
        const progress = deps.state.progress(handoff.id)!;
        if (!speculative.has(handoff.id) && !progress.checkpoint) {
          const sealing = sealSpeculativeCheckpoint(deps, driver, handoff).catch(() => null);
          const entry = { taking: sealing, sealed: false };
          // Marked sealed before the gate is asked: a gate that waits here does not change the quiescing's commit.
          entry.taking = sealing.then((sealed) => {
            entry.sealed = sealed !== null;
            const held = sealed ? driver.pass({ at: 'work', work: 'speculative-checkpoint-sealed' }, handoff) : undefined;
            return held ? held.then(() => sealed) : sealed;
          });
          speculative.set(handoff.id, entry);
        }
        driver.at(`${handoff.id}:prepare`, progress.seenAt + config.prepareTimeoutMs, async () => {
          const now = driver.get(handoff.id);
          if (now?.state === 'requested') {
            await driver.cancel(
              now,
              targetTimeout(`prepare within ${Math.round(config.prepareTimeoutMs / 1000)} s`, deps.link.longestWait()),
            );
          }
        });
        return;
      }
      case 'target-prepared': {
        driver.clearTimer(`${handoff.id}:prepare`);
        sessions.setInputBlock(handoff.sessionId, QUIESCING);
        // Input is refused from here on: the turn's end, the re-check and the checkpoint need not wait for the backend.
        const session = deps.state.readSession(handoff.sessionId);
        const begun = speculative.get(handoff.id);
        const taken = begun?.taking;
        speculative.delete(handoff.id);
        // A small checkpoint sealed ahead and no turn to wait for: the quiescing is over as it begins, so
        // it is recorded with the relinquish, in one commit (sent once the input block is on disk), which
        // carries the checkpoint itself when it is small enough (else it goes up first). The checkpoint's
        // reads need not wait for that: input is refused already. A large one (not taken ahead), or one
        // still being sealed, is taken with quiescing recorded first, as the stepper shows.
        if (begun?.sealed && session && !sessions.provider(session.id)?.isTurnActive()) {
          const checkpointed = deps.state.progress(handoff.id)?.checkpoint;
          // One too large to travel in the relinquish goes up now, while the checkpoint is re-checked.
          void taken?.then((sealed) => sealed?.mayBeCurrent() && sealed.checkpoint.size > inlineMax(config) && sealed.upload());
          const attempt = checkpointed ? undefined : takeCheckpoint(deps, driver, handoff, session, taken, inlineMax(config));
          await checkpointStep(deps, driver, handoff, attempt);
          return;
        }
        // What was sealed while the target prepared goes up now, beside the quiescing.
        void taken?.then((sealed) => sealed?.mayBeCurrent() && sealed.upload());
        const quiescing = driver.transition(handoff, 'source-quiescing');
        // Begun once the transition is on its way (sent when the input block is on disk): starting git
        // holds this thread for a moment, which the request should not wait for.
        const sent = deps.state
          .settled()
          .catch(() => undefined)
          .then(nextTurn);
        if (session && !attempts.has(handoff.id) && !deps.state.progress(handoff.id)?.checkpoint)
          attempts.set(
            handoff.id,
            sent.then(() => takeCheckpoint(deps, driver, handoff, session, taken)),
          );
        await quiescing;
        return;
      }
      case 'source-quiescing': {
        // Set when this device asked for quiescing; again only after a restart lost it.
        if (deps.state.readSession(handoff.sessionId)?.inputBlock?.code !== 'quiescing')
          sessions.setInputBlock(handoff.sessionId, QUIESCING);
        const taken = attempts.get(handoff.id);
        attempts.delete(handoff.id);
        await checkpointStep(deps, driver, handoff, taken);
        return;
      }
      case 'source-relinquished-and-checkpointed':
        driver.at(`${handoff.id}:claim`, deps.clock() + config.claimTimeoutMs, async () => {
          const now = driver.get(handoff.id);
          if (now?.state === 'source-relinquished-and-checkpointed') {
            await driver.cancel(now, targetTimeout('take over the checkpoint in time', deps.link.longestWait()));
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
        attempts.delete(handoff.id);
        speculative.delete(handoff.id);
        await onEnded(deps, driver, handoff);
        return;
    }
  };
}
