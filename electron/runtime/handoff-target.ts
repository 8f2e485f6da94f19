/**
 * The target's part of a handoff: prepare (can open the workspace, has the provider and key,
 * fetched), claim the checkpoint, then activate: fetch the blob, verify its digest, unseal, pin the
 * workspace, check drift — and only then resume the provider. A failure before the provider call
 * cancels with its reason and leaves the session "needs attention" on this device.
 */
import type { Handoff } from '../../shared/api/handoffs.ts';
import { continuationInput } from './continuation.ts';
import { decodeCheckpoint, sha256Hex, type Checkpoint } from './checkpoint.ts';
import { transferred, type Coordinator, type Step } from './coordinator.ts';

type Failure = { ok: false; code: string; message: string };
export type ActivationResult =
  | { ok: true; resumePath: 'checkpoint-import' | 'summary-continuation'; note: string | null; drift: { code: string; detail: string }[] }
  | Failure;

/** Learns the session record (sealed meta) when the push has not delivered it yet. */
async function knownSession(c: Coordinator, sessionId: string) {
  if (!c.deps.state.session(sessionId)) {
    const record = await c.deps.backend.getSession(sessionId);
    if (record.ok) await c.deps.sessions.applyRemote(record.value);
  }
  return c.deps.state.session(sessionId);
}

/** requested: the target checks it can take the session and fetches, then says so. */
async function prepare(c: Coordinator, handoff: Handoff): Promise<void> {
  const { config, providers, git } = c.deps;
  const delay = config.testPrepareDelayMs ?? 0;
  if (delay > 0) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    await c.refresh(handoff.id);
    if (c.get(handoff.id)?.state !== 'requested') return;
  }
  const session = await knownSession(c, handoff.sessionId);
  if (!session) {
    await c.cancel(handoff, { code: 'target_missing_key_version', message: 'The target cannot open this session (it lacks the key version).' });
    return;
  }
  const available = (await providers.list()).some((p) => p.id === session.provider && p.available);
  if (!available) {
    await c.cancel(handoff, { code: 'target_missing_provider', message: `The target does not have the ${session.provider} provider.` });
    return;
  }
  const prepared = await git.prepare(session.repos, config.workspaceRoot);
  if (!prepared.ok) {
    await c.cancel(handoff, { code: prepared.code.slice(0, 63), message: prepared.message.slice(0, 2000) });
    return;
  }
  await c.transition(handoff, 'target-prepared');
}

/**
 * Fetches, verifies, unseals, pins and resumes. Every check runs before any provider call; the
 * first failure is returned with its code and nothing after it runs.
 */
export async function activateCheckpoint(c: Coordinator, handoff: Handoff): Promise<ActivationResult> {
  const { backend, seal, git, packets, providers, sessions, state, selfId, config, clock } = c.deps;
  if (!handoff.checkpoint) return { ok: false, code: 'checkpoint_missing', message: 'The handoff carries no checkpoint.' };
  const marks: [string, number][] = [['start', clock()]];
  const mark = (phase: string) => marks.push([phase, clock()]);
  const blob = await backend.getBlob(handoff.checkpoint.digest);
  if (!blob.ok) {
    if (blob.code === 'not_found') return { ok: false, code: 'checkpoint_missing', message: 'The checkpoint body is not in the store.' };
    throw new Error(`checkpoint download failed: ${blob.code}`);
  }
  if (sha256Hex(blob.value) !== handoff.checkpoint.digest || blob.value.byteLength !== handoff.checkpoint.size) {
    return { ok: false, code: 'digest_mismatch', message: 'The checkpoint body does not match its content address.' };
  }
  const opened = seal.openCheckpoint(blob.value, handoff.sessionId, handoff.id);
  if (!opened.ok) return { ok: false, code: opened.code, message: opened.message };
  const decoded = decodeCheckpoint(opened.value, handoff.sessionId, handoff.id);
  if (!decoded.ok) return decoded;
  const checkpoint: Checkpoint = decoded.value;
  mark('verified');
  const pinned = await git.pin(checkpoint.repos, config.workspaceRoot);
  if (!pinned.ok) return { ok: false, code: pinned.code, message: pinned.message };
  mark('pinned');
  const reports = await Promise.all(checkpoint.packets.map(async (entry) => {
    const repoPath = pinned.value.repoPaths[checkpoint.repos.findIndex((r) => r.relPath === entry.relPath)];
    if (repoPath === undefined) return [];
    return packets.drift(entry.packet, repoPath).catch((error: Error) => {
      c.deps.log(`drift check skipped: ${error.message}`);
      return [];
    });
  }));
  const drift = reports.flat();
  mark('drift');
  const workspace = pinned.value.workspace;
  state.updateSession(handoff.sessionId, (s) => {
    s.workspace = workspace; s.repoPaths = pinned.value.repoPaths; s.ownerDeviceId = selfId; s.generation = Math.max(s.generation, handoff.generation + 1);
    s.transcript = checkpoint.transcriptTail; s.agents = checkpoint.agents; s.providerResume = checkpoint.providerResume;
    s.repos = checkpoint.repos.map(({ relPath, remoteUrl, branch }) => ({ relPath, remoteUrl, branch }));
  });
  // Only now, with the checkpoint verified and the workspace pinned, does a provider start.
  const provider = sessions.attach(handoff.sessionId, checkpoint.meta.provider);
  const continuation = continuationInput({
    title: checkpoint.meta.title, ranOn: checkpoint.sourceDeviceName, goal: checkpoint.meta.prompt, transcript: checkpoint.transcriptTail,
    repos: checkpoint.repos, drift, nextAction: 'Continue where the session left off.',
  });
  const resumed = await providers.resume(provider, checkpoint.providerResume, continuation, workspace);
  if (!resumed.ok) {
    await sessions.detach(handoff.sessionId);
    return { ok: false, code: 'resume_failed', message: resumed.message };
  }
  mark('resumed');
  c.deps.log(`activated ${handoff.id}: ${marks.slice(1).map(([phase, at], i) => `${phase} +${at - marks[i]![1]} ms`).join(', ')}`);
  return { ok: true, resumePath: resumed.value.path, note: resumed.value.reason ?? null, drift };
}

/** Marks the session as needing attention after a failed activation (ownership stays here). */
function needsAttention(c: Coordinator, handoff: Handoff, failure: Failure): void {
  c.deps.state.updateSession(handoff.sessionId, (s) => {
    s.ownerDeviceId = c.deps.selfId;
    s.generation = Math.max(s.generation, handoff.generation + 1);
    s.needsAttention = { handoffId: handoff.id, code: failure.code, message: failure.message };
  });
  c.deps.sessions.setInputBlock(handoff.sessionId, { code: 'needs_attention', message: `Activation failed (${failure.code}): ${failure.message}` });
}

/** target-activating: activate, then record completion (or cancel with the reason). */
async function activate(c: Coordinator, handoff: Handoff): Promise<void> {
  const delay = c.deps.config.testActivateDelayMs ?? 0;
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  const result = await activateCheckpoint(c, handoff);
  if (!result.ok) {
    needsAttention(c, handoff, result);
    await c.cancel(handoff, { code: result.code.slice(0, 63), message: result.message.slice(0, 2000) });
    return;
  }
  c.deps.state.updateProgress(handoff.id, (p) => { p.resumeNote = result.note; p.driftWarnings = result.drift; });
  c.deps.sessions.clearAttention(handoff.sessionId);
  const sealedOutcome = c.deps.seal.sealJson({ resumeNote: result.note, driftWarnings: result.drift }, { kind: 'handoff-outcome', sessionId: handoff.sessionId, handoffId: handoff.id });
  await c.transition(handoff, 'completed', { resumePath: result.resumePath, sealedOutcome });
  // Until this export lands, a restart resumes from the checkpoint's own provider data.
  const provider = c.deps.sessions.provider(handoff.sessionId);
  if (provider) await c.deps.sessions.saveResumeData(handoff.sessionId, provider);
}

/** The target's step for the handoff's current state. */
export const targetStep: Step = async (handoff, c) => {
  switch (handoff.state) {
    case 'requested':
      await prepare(c, handoff);
      return;
    case 'source-relinquished-and-checkpointed':
      await c.transition(handoff, 'ownership-transferred');
      return;
    case 'ownership-transferred':
      await knownSession(c, handoff.sessionId);
      c.deps.state.updateSession(handoff.sessionId, (s) => {
        s.ownerDeviceId = c.deps.selfId;
        s.generation = Math.max(s.generation, handoff.generation + 1);
        s.inputBlock = { code: 'not_running', message: 'The session is being activated on this device.' };
      });
      await c.transition(handoff, 'target-activating');
      return;
    case 'target-activating':
      await activate(c, handoff);
      return;
    case 'cancelled':
      if (transferred(handoff) && !c.deps.state.session(handoff.sessionId)?.needsAttention) {
        needsAttention(c, handoff, { ok: false, code: handoff.cancelReason?.code ?? 'activation_failed', message: handoff.cancelReason?.message ?? 'Activation failed.' });
      }
      c.finish(handoff.id);
      return;
    case 'completed':
      c.finish(handoff.id);
      return;
    default:
      return;
  }
};
