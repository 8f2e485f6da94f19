/**
 * The target's part of a handoff: prepare (can open the workspace, has the provider and key,
 * fetched), claim the checkpoint, then activate it (activation.ts). A failure before the provider
 * call cancels with its reason and leaves the session "needs attention" on this device.
 */
import type { Handoff, HandoffOutcome } from '../../shared/api/handoffs.ts';
import type { CodedMessage } from '../../shared/errors.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { AccountPort } from '../ports/account.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { GitPort } from '../ports/git.ts';
import type { ProviderPort } from '../ports/providers.ts';
import type { SealPort } from '../ports/seal.ts';
import type { SessionsPort } from '../ports/sessions.ts';
import { activateCheckpoint, type ActivationDeps, type ActivationResult } from './activation.ts';
import { CheckpointOpenings } from './checkpoint-openings.ts';
import { openCancelReason } from './cancel-reason.ts';
import { checkoutPlaces } from './checkout-places.ts';
import { openMoveCommits } from './move-commits.ts';
import { transferred, type HandoffDriver, type Step } from './coordinator.ts';
import type { HandoffConfig } from './handoff-config.ts';
import { prepareBlocker } from './target-checkout-block.ts';

/** What the target's steps use, and nothing more (activation's needs included). */
export interface TargetStepDeps extends Omit<ActivationDeps, 'state' | 'backend' | 'seal' | 'git' | 'providers' | 'sessions' | 'config'> {
  state: Pick<LocalState, 'readSession' | 'readSessions' | 'updateSession' | 'updateProgress' | 'rewriteTranscript' | 'exportsDir'>;
  backend: Pick<BackendPort, 'getBlobTo' | 'getSession'>;
  seal: Pick<SealPort, 'startCheckpointOpen' | 'sealJson' | 'openJson' | 'keyVersions'>;
  /** Fetches key versions wrapped for this device since it last looked (a rotation it may have missed). */
  keys: Pick<AccountPort, 'refreshKeyRing'>;
  git: Pick<GitPort, 'prepare' | 'pin' | 'locate' | 'startCloneStatusReads'>;
  providers: Pick<ProviderPort, 'list' | 'resume' | 'create'>;
  sessions: Pick<
    SessionsPort,
    | 'applyRemote'
    | 'attach'
    | 'detach'
    | 'note'
    | 'setInputBlock'
    | 'clearAttention'
    | 'provider'
    | 'saveResumeData'
    | 'publishMeta'
    | 'holdAppends'
  >;
  config: Pick<HandoffConfig, 'workspaceRoot'>;
}

/** Learns the session record (sealed meta) when the push has not delivered it yet. */
async function knownSession(deps: TargetStepDeps, sessionId: string) {
  if (!deps.state.readSession(sessionId)) {
    const record = await deps.backend.getSession(sessionId);
    if (record.ok) await deps.sessions.applyRemote(record.value);
  }
  return deps.state.readSession(sessionId);
}

/** Whether this device holds the key version the checkpoint will be sealed under (fetching wraps it may have missed first). */
async function holdsKeyVersion(deps: TargetStepDeps, keyVersion: number | null): Promise<boolean> {
  if (keyVersion === null || deps.seal.keyVersions().includes(keyVersion)) return true;
  await deps.keys.refreshKeyRing().catch((error: Error) => deps.log(`key refresh failed: ${error.message}`));
  return deps.seal.keyVersions().includes(keyVersion);
}

/** requested: the target checks it can take the session and fetches, then says so. */
async function prepare(deps: TargetStepDeps, driver: HandoffDriver, handoff: Handoff): Promise<void> {
  const { providers, git } = deps;
  // Before anything else: a checkpoint this device cannot open must never be transferred to it.
  if (!(await holdsKeyVersion(deps, handoff.keyVersion))) {
    await driver.cancel(handoff, {
      code: 'target_missing_key_version',
      message: `The target does not hold account key version ${handoff.keyVersion}, which the checkpoint would be sealed under.`,
    });
    return;
  }
  let session = await knownSession(deps, handoff.sessionId);
  if (!session) {
    await driver.cancel(handoff, {
      code: 'target_missing_key_version',
      message: 'The target cannot open this session (it lacks the key version).',
    });
    return;
  }
  const listed = await providers.list();
  const has = (agent: string) => listed.some((p) => p.id === agent && p.available);
  const agentOf = (s: typeof session) => (s?.continueWith?.handoffId === handoff.id ? s.continueWith.provider : (s?.provider ?? ''));
  // The agent this move continues with is named in the session's sealed metadata, which the push
  // brought before the handoff; if it has not been applied yet, the record is read afresh.
  if (!has(agentOf(session))) {
    const record = await deps.backend.getSession(handoff.sessionId);
    if (record.ok) await deps.sessions.applyRemote(record.value);
    session = deps.state.readSession(handoff.sessionId) ?? session;
  }
  const agent = agentOf(session);
  if (!has(agent)) {
    await driver.cancel(handoff, {
      code: 'target_missing_provider',
      message: `The target does not have the ${agent} provider.`,
    });
    return;
  }
  // The commits the source named on the record: just those are fetched, nothing where they are here.
  const commits = openMoveCommits(deps.seal, handoff);
  if (handoff.sealedCommits && commits.size === 0) deps.log(`handoff ${handoff.id}: its commits did not open; each branch is fetched`);
  const repos = session.repos.map((r) => ({ ...r, ...(commits.has(r.relPath) ? { commit: commits.get(r.relPath)! } : {}) }));
  const prepared = await git.prepare(repos, checkoutPlaces(deps, handoff.sessionId), (report) =>
    deps.progress({ handoffId: handoff.id, sessionId: handoff.sessionId, ...report }),
  );
  if (!prepared.ok) {
    // The move stops before anything moved; the source records it as the session's blocked state.
    const blocker = prepareBlocker(prepared, { id: deps.selfId, name: deps.selfName });
    await driver.cancel(handoff, { code: prepared.code.slice(0, 63), message: blocker.message.slice(0, 2000) }, [blocker]);
    return;
  }
  await driver.transition(handoff, 'target-prepared');
}

/** Marks the session as needing attention after a failed activation (ownership stays here). */
function needsAttention(deps: TargetStepDeps, handoff: Handoff, failure: CodedMessage): void {
  deps.state.updateSession(handoff.sessionId, (s) => {
    s.ownerDeviceId = deps.selfId;
    s.generation = Math.max(s.generation, handoff.generation + 1);
    s.needsAttention = { handoffId: handoff.id, code: failure.code, message: failure.message };
  });
  deps.sessions.setInputBlock(handoff.sessionId, {
    code: 'needs_attention',
    message: `Activation failed (${failure.code}): ${failure.message}`,
  });
}

/**
 * Activation up to the resumed provider, on what was begun ahead: the checkpoint opened (workspace
 * pinned, drift read), the transcript merged, the provider resumed. Begun once the session is this
 * device's (the take-over); throws only for the step to try again (a failed download).
 */
async function resumeActivation(
  deps: TargetStepDeps,
  driver: HandoffDriver,
  handoff: Handoff,
  openings: CheckpointOpenings,
): Promise<ActivationResult> {
  const opening = openings.take(handoff.id);
  const opened = opening ? await opening : null;
  const held = driver.pass({ at: 'work', work: 'checkpoint-opened' }, handoff);
  if (held) await held;
  if (opened && 'thrown' in opened) throw opened.thrown;
  return activateCheckpoint(deps, handoff, opened ? Promise.resolve(opened.opened) : undefined);
}

/** target-activating: records completion on the activation begun as the state was recorded (or cancels with the reason). */
async function activate(
  deps: TargetStepDeps,
  driver: HandoffDriver,
  handoff: Handoff,
  activation: Promise<ActivationResult>,
): Promise<void> {
  const result = await activation;
  if (!result.ok) {
    needsAttention(deps, handoff, result);
    await driver.cancel(handoff, { code: result.code.slice(0, 63), message: result.message.slice(0, 2000) });
    return;
  }
  const { resumePath, note, drift, folder, providerChange, carried } = result.value;
  deps.state.updateProgress(handoff.id, (p) => {
    p.resumeNote = note;
    p.driftWarnings = drift;
    p.targetFolder = folder;
    p.providerChange = providerChange;
    p.carried = carried;
  });
  deps.sessions.clearAttention(handoff.sessionId);
  const outcome: HandoffOutcome = { resumeNote: note, driftWarnings: drift, targetFolder: folder, providerChange, carried };
  const sealedOutcome = deps.seal.sealJson(outcome, { kind: 'handoff-outcome', sessionId: handoff.sessionId, handoffId: handoff.id });
  await driver.transition(handoff, 'completed', { resumePath, sealedOutcome });
  // The sealed metadata names the owner's workspace: this device's now (a lost local record is rebuilt from it).
  const published = await deps.sessions.publishMeta(handoff.sessionId);
  if (!published.ok) deps.log(`session metadata not republished: ${published.code}`);
  // Until this export lands, a restart resumes from the checkpoint's own provider data.
  const provider = deps.sessions.provider(handoff.sessionId);
  if (provider) await deps.sessions.saveResumeData(handoff.sessionId, provider);
}

/** The target's step for the handoff's current state. */
export function targetStep(deps: TargetStepDeps): Step {
  // Activation's download (begun while the session is claimed), checks and pin (begun once it is this device's): checkpoint-openings.ts.
  const openings = new CheckpointOpenings(deps);
  // Activations begun by the take-over, by handoff: the target-activating step takes the result (again
  // when it retries recording it) until the handoff ends; one that threw is begun anew.
  const activations = new Map<string, Promise<ActivationResult>>();
  const activation = (handoff: Handoff, driver: HandoffDriver): Promise<ActivationResult> => {
    let begun = activations.get(handoff.id);
    if (!begun) {
      begun = resumeActivation(deps, driver, handoff, openings);
      activations.set(handoff.id, begun);
      begun.catch(() => activations.delete(handoff.id));
    }
    return begun;
  };
  // The held appends of each session this device is taking over (holdAppends), by handoff.
  const releases = new Map<string, () => void>();
  const release = (handoffId: string) => {
    releases.get(handoffId)?.();
    releases.delete(handoffId);
  };
  /** Takes over the session, now this device's, and begins its activation (once per handoff). */
  const takeOver = async (handoff: Handoff, driver: HandoffDriver) => {
    if (activations.has(handoff.id)) return;
    openings.open(handoff);
    await knownSession(deps, handoff.sessionId);
    // Not waited onto the disk: the backend's record says who owns the session, and after a restart
    // the target-activating step writes all of it again.
    deps.state.updateSession(
      handoff.sessionId,
      (s) => {
        s.ownerDeviceId = deps.selfId;
        s.generation = Math.max(s.generation, handoff.generation + 1);
        s.inputBlock = { code: 'not_running', message: 'The session is being activated on this device.' };
      },
      false,
    );
    // What the resumed provider writes goes to the backend once the move has ended, after `completed`.
    if (!releases.has(handoff.id))
      deps.sessions.holdAppends(handoff.sessionId, new Promise<void>((resolve) => releases.set(handoff.id, resolve)));
    void activation(handoff, driver);
  };
  return async (handoff, driver) => {
    switch (handoff.state) {
      case 'requested':
        await prepare(deps, driver, handoff);
        return;
      case 'source-relinquished-and-checkpointed': {
        // The checkpoint is up: its download into private staging runs while the session is claimed.
        openings.receive(handoff);
        // The claim enters target-activating in the same commit: the target does nothing between the
        // two but begin the take-over.
        const claimed = driver.transition(handoff, 'ownership-transferred', { continueTo: 'target-activating' });
        // The pin's clean-status read runs while the claim is recorded (read only; the pin takes it),
        // begun once the claim and the download are on their way: starting git holds this thread.
        const repos = deps.state.readSession(handoff.sessionId)?.repos ?? [];
        setImmediate(() => deps.git.startCloneStatusReads(repos, checkoutPlaces(deps, handoff.sessionId)));
        await claimed;
        return;
      }
      case 'ownership-transferred':
        // Claimed alone (the backend does not continue a transition). The session is this device's:
        // its activation runs while target-activating is recorded.
        await takeOver(handoff, driver);
        await driver.transition(handoff, 'target-activating');
        return;
      case 'target-activating':
        await takeOver(handoff, driver);
        await activate(deps, driver, handoff, activation(handoff, driver));
        return;
      case 'cancelled':
        release(handoff.id);
        activations.delete(handoff.id);
        await openings.forget(handoff.id);
        if (transferred(handoff) && !deps.state.readSession(handoff.sessionId)?.needsAttention) {
          needsAttention(
            deps,
            handoff,
            openCancelReason(deps.seal, handoff) ?? { code: 'activation_failed', message: 'Activation failed.' },
          );
        }
        driver.finish(handoff.id);
        return;
      case 'completed':
        release(handoff.id);
        activations.delete(handoff.id);
        await openings.forget(handoff.id);
        driver.finish(handoff.id);
        return;
      default:
        return;
    }
  };
}
