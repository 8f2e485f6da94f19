/**
 * A speculative checkpoint, taken while the target prepares: the source builds and seals it as soon
 * as the move is requested — the session still taking input — and keeps the digest of its plain
 * body with the build times left out (the checkpoint's and its packets'). Its upload starts once the
 * target has prepared, alongside the source's quiescing, unless a turn is running or the transcript
 * has grown since (a body surely stale is not sent). The checkpoint built after input is refused
 * and readiness re-checked is used only through this one: when its body, times left out, has the
 * same digest, the blob uploaded is that very body sealed for this handoff, and nothing is sealed or
 * uploaded again. Anything that changed meanwhile (a message, a turn, a commit, a file) changes the
 * digest, and the checkpoint is taken anew. On the fast path (no turn to wait for) a small one is not
 * uploaded at all: it travels in the relinquish itself (`checkpointBody`), one round trip fewer.
 *
 * Only a session with no turn running, whose sealed checkpoint stays within CHECKPOINT_MEMORY_BYTES and
 * whose move carries no work, is sealed speculatively: one with larger provider files or a long transcript is not even written, and a large
 * one is never uploaded twice.
 */
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { INLINE_CHECKPOINT_MAX_BYTES, type CheckpointRef, type Handoff } from '../../shared/api/handoffs.ts';
import type { LocalState } from '../local-state/local-state.ts';
import { isPacket } from '../packet/packet-format.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { GitPort } from '../ports/git.ts';
import type { ProgressSink } from '../ports/progress.ts';
import type { SealPort } from '../ports/seal.ts';
import type { SessionsPort } from '../ports/sessions.ts';
import type { Checkpoint } from './checkpoint.ts';
import { buildCheckpoint, type CheckpointBuildDeps } from './checkpoint-build.ts';
import { CHECKPOINT_MEMORY_BYTES, sealCheckpoint, uploadSealed } from './checkpoint-transfer.ts';
import { writeCheckpoint } from './checkpoint-writer.ts';
import type { HandoffDriver } from './coordinator.ts';
import { uploadProgress } from './progress-reports.ts';

/** What sealing a speculative checkpoint uses (of the source step's dependencies). */
export interface SpeculativeCheckpointDeps extends CheckpointBuildDeps {
  state: CheckpointBuildDeps['state'] & Pick<LocalState, 'readSession' | 'scratchFile'>;
  sessions: Pick<SessionsPort, 'provider'>;
  git: Pick<GitPort, 'checkpointReadOnRecentReadiness'>;
  seal: Pick<SealPort, 'startCheckpointSeal'>;
  backend: Pick<BackendPort, 'putBlob' | 'putBlobFile'>;
  /** Where the checkpoint upload reports how far it got. */
  progress: ProgressSink;
}

/** A transcript longer than this is not sealed speculatively (the sealed size bounds the rest). */
const SPECULATIVE_MAX_ENTRIES = 2000;

/** A checkpoint sealed speculatively, the digest of its plain body with its build times left out, and its upload. */
export interface SpeculativeCheckpoint {
  checkpoint: CheckpointRef;
  timelessSha256: string;
  /** Uploads the sealed body (once; later calls give the same answer): whether the store has it. */
  upload(): Promise<boolean>;
  /** Whether it may still be current: no turn running, and as many transcript entries as when it was taken. */
  mayBeCurrent(): boolean;
  /** The sealed body as base64url, to travel in the relinquish instead of an upload; null when over `maxBytes` (or the backend's most). */
  inlineBody(maxBytes: number): string | null;
}

/** SHA-256 of `checkpoint`'s plain body as written, its build times blanked (the checkpoint's and each packet's). */
export async function timelessDigest(checkpoint: Checkpoint): Promise<string> {
  const hash = createHash('sha256');
  const timeless: Checkpoint = {
    ...checkpoint,
    createdAt: 0,
    packets: checkpoint.packets.map((p) =>
      isPacket(p.packet) ? { ...p, packet: { ...p.packet, verified: { ...p.packet.verified, created_at: '' } } } : p,
    ),
  };
  await writeCheckpoint(timeless, async (chunk) => void hash.update(chunk));
  return hash.digest('hex');
}

/**
 * Seals `handoff`'s speculative checkpoint (see the file header); null when the session is busy or not
 * ready, the checkpoint is too large, the move moved on, or anything failed (the source step then
 * takes it as it always does).
 */
export async function sealSpeculativeCheckpoint(
  deps: SpeculativeCheckpointDeps,
  driver: HandoffDriver,
  handoff: Handoff,
): Promise<SpeculativeCheckpoint | null> {
  const session = deps.state.readSession(handoff.sessionId);
  const provider = session ? deps.sessions.provider(session.id) : undefined;
  // A move that carries the work builds its capsules once, from the checkpoint's own read (carried-work.ts).
  if (!session || provider?.isTurnActive() || session.carryOn?.handoffId === handoff.id) return null;
  const { report, repos } = await deps.git.checkpointReadOnRecentReadiness(session);
  if (!report.ready) return null;
  const entries = deps.state.transcriptCount(session.id);
  const transcriptPath = deps.state.scratchFile(`${handoff.id}.ahead.transcript`);
  const path = deps.state.scratchFile(`${handoff.id}.ahead.sealed`);
  try {
    const built = await buildCheckpoint(deps, handoff, session, provider, repos, transcriptPath);
    // Plainly too large: not even written (its digest and seal would read every byte).
    const fileBytes = (built.providerResume?.files ?? []).reduce((sum, file) => sum + file.size, 0);
    if (fileBytes > CHECKPOINT_MEMORY_BYTES || built.transcript.count > SPECULATIVE_MAX_ENTRIES) return null;
    const timelessSha256 = await timelessDigest(built);
    const sealer = deps.seal.startCheckpointSeal(session.id, handoff.id, handoff.keyVersion ?? undefined);
    const sealed = await sealCheckpoint(sealer, built, path, CHECKPOINT_MEMORY_BYTES);
    const chunks = sealed.chunks;
    if (chunks === null) return null;
    deps.log(`checkpoint of ${handoff.id}: ${sealed.size} bytes sealed ahead while the target prepares`);
    let uploaded: Promise<boolean> | null = null;
    const upload = async () => {
      const state = driver.get(handoff.id)?.state;
      if (state !== 'target-prepared' && state !== 'source-quiescing') return false;
      const put = await uploadSealed(deps.backend, sealed, uploadProgress(deps.progress, handoff, sealed.size)).catch(() => null);
      return put?.ok === true;
    };
    return {
      checkpoint: { digest: sealed.sha256, size: sealed.size },
      timelessSha256,
      upload: () => (uploaded ??= upload()),
      mayBeCurrent: () => !deps.sessions.provider(session.id)?.isTurnActive() && deps.state.transcriptCount(session.id) === entries,
      inlineBody: (maxBytes) =>
        sealed.size <= Math.min(maxBytes, INLINE_CHECKPOINT_MAX_BYTES) ? Buffer.concat(chunks).toString('base64url') : null,
    };
  } finally {
    await rm(path, { force: true });
    await rm(transcriptPath, { force: true });
  }
}
