/**
 * Activation on the target: fetch the checkpoint body, verify its digest, unseal it, pin the
 * workspace, check drift — and only then resume the provider. Every check runs before any provider
 * call; the first failure is returned with its code and nothing after it runs.
 */
import type { DriftWarning, Handoff, ResumePath } from '../../shared/api/handoffs.ts';
import { detectedVersion, olderCliReason } from '../../shared/cli-version.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import { isProviderId } from '../../shared/provider.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { BackendPort, Clock, GitPort, PacketPort, ProviderPort, SealPort } from '../runtime/ports.ts';
import type { ProgressSink } from '../runtime/progress-sink.ts';
import type { SessionService } from '../runtime/session-service.ts';
import { decodeCheckpoint, sha256Hex, type Checkpoint } from './checkpoint.ts';
import { continuationInput } from './continuation.ts';
import { mergeTranscripts } from './transcript-merge.ts';
import type { HandoffConfig } from './handoff-config.ts';

/** How the provider resumed, why that way (when it fell back), and the drift found on the pinned tree. */
export interface Activated {
  resumePath: ResumePath;
  note: string | null;
  drift: DriftWarning[];
}
export type ActivationResult = Result<Activated>;

/** What activation uses, and nothing more. */
export interface ActivationDeps {
  selfId: string;
  /** Activation's own write is not durable: its caller's next durable write of the session settles it. */
  state: Pick<LocalState, 'updateSession'>;
  backend: Pick<BackendPort, 'getBlob'>;
  seal: Pick<SealPort, 'openCheckpoint'>;
  git: Pick<GitPort, 'pin'>;
  packets: Pick<PacketPort, 'drift'>;
  providers: Pick<ProviderPort, 'list' | 'resume'>;
  sessions: Pick<SessionService, 'attach' | 'detach'>;
  config: Pick<HandoffConfig, 'workspaceRoot'>;
  clock: Clock;
  log(message: string): void;
  /** Where the checkpoint download, the workspace fetch or clone and the import report how far they got. */
  progress: ProgressSink;
}

/** A checkpoint fetched, verified and unsealed, its workspace pinned and its drift read: all but the resume. */
export interface Opened {
  checkpoint: Checkpoint;
  pinned: { workspace: string; repoPaths: string[] };
  drift: DriftWarning[];
  /** When each part ended (for the log). */
  marks: [string, number][];
}

/**
 * Fetches the checkpoint body of `handoff`, verifies its digest, unseals it, pins the workspace and
 * checks drift. No provider is touched: the first failure is returned with its code.
 */
export async function openCheckpoint(deps: Omit<ActivationDeps, 'state' | 'sessions'>, handoff: Handoff): Promise<Result<Opened>> {
  const { backend, seal, git, packets, clock } = deps;
  if (!handoff.checkpoint) return fail('checkpoint_missing', 'The handoff carries no checkpoint.');
  const marks: [string, number][] = [['start', clock()]];
  const mark = (phase: string) => marks.push([phase, clock()]);
  const blob = await backend.getBlob(handoff.checkpoint.digest);
  if (!blob.ok) {
    if (blob.code === 'not_found') return fail('checkpoint_missing', 'The checkpoint body is not in the store.');
    throw new Error(`checkpoint download failed: ${blob.code}`);
  }
  if (sha256Hex(blob.value) !== handoff.checkpoint.digest || blob.value.byteLength !== handoff.checkpoint.size) {
    return fail('digest_mismatch', 'The checkpoint body does not match its content address.');
  }
  const opened = seal.openCheckpoint(blob.value, handoff.sessionId, handoff.id);
  if (!opened.ok) return fail(opened.code, opened.message);
  const decoded = decodeCheckpoint(opened.value, handoff.sessionId, handoff.id);
  if (!decoded.ok) return decoded;
  const checkpoint: Checkpoint = decoded.value;
  mark('verified');
  const pinned = await git.pin(checkpoint.repos, deps.config.workspaceRoot, (report) =>
    deps.progress({ handoffId: handoff.id, sessionId: handoff.sessionId, ...report }),
  );
  if (!pinned.ok) return fail(pinned.code, pinned.message);
  mark('pinned');
  const reports = await Promise.all(
    checkpoint.packets.map(async (entry) => {
      const index = checkpoint.repos.findIndex((r) => r.relPath === entry.relPath);
      const repoPath = pinned.value.repoPaths[index];
      if (repoPath === undefined) return [];
      // The pin just verified branch, HEAD and what is uncommitted: the drift check does not read them again.
      return packets.drift(entry.packet, repoPath, pinned.value.checkedOut[index]).catch((error: Error) => {
        deps.log(`drift check skipped: ${error.message}`);
        return [];
      });
    }),
  );
  mark('drift');
  return ok({ checkpoint, pinned: pinned.value, drift: reports.flat(), marks });
}

/**
 * Fetches, verifies, unseals, pins and resumes the checkpoint of `handoff`; `opened`: what
 * openCheckpoint already did of it (begun while the target claimed the session).
 */
export async function activateCheckpoint(
  deps: ActivationDeps,
  handoff: Handoff,
  opened?: Promise<Result<Opened>>,
): Promise<ActivationResult> {
  const { providers, sessions, state, selfId, clock } = deps;
  const open = await (opened ?? openCheckpoint(deps, handoff));
  if (!open.ok) return open;
  const { checkpoint, pinned, drift, marks } = open.value;
  const mark = (phase: string) => marks.push([phase, clock()]);
  const workspace = pinned.workspace;
  state.updateSession(
    handoff.sessionId,
    (s) => {
      s.workspace = workspace;
      s.repoPaths = pinned.repoPaths;
      s.ownerDeviceId = selfId;
      s.generation = Math.max(s.generation, handoff.generation + 1);
      // Merged by entry identity: whatever this device had (its own notes, entries it pulled) stays.
      s.transcript = mergeTranscripts(s.transcript, checkpoint.transcript);
      s.agents = checkpoint.agents;
      s.providerResume = checkpoint.providerResume;
      // The target's provider is made (attach, below) with the level the session ran with on the source.
      if (checkpoint.meta.permission !== undefined) s.permission = checkpoint.meta.permission;
      s.repos = checkpoint.repos.map(({ relPath, remoteUrl, branch }) => ({ relPath, remoteUrl, branch }));
      // Written behind: what settles the record before `completed` is the caller's next durable write
      // (clearing the input block); a restart before it activates this checkpoint again.
    },
    false,
  );
  // Only now, with the checkpoint verified and the workspace pinned, does a provider start.
  const provider = sessions.attach(handoff.sessionId, checkpoint.meta.provider);
  const continuation = continuationInput({
    title: checkpoint.meta.title,
    ranOn: checkpoint.sourceDeviceName,
    goal: checkpoint.meta.prompt,
    transcript: checkpoint.transcript,
    repos: checkpoint.repos,
    drift,
    nextAction: 'Continue where the session left off.',
  });
  const older = isProviderId(checkpoint.meta.provider)
    ? olderCliReason(
        checkpoint.meta.provider,
        { name: 'The target device', version: detectedVersion(await providers.list(), checkpoint.meta.provider) },
        checkpoint.meta.providerVersion ?? null,
      )
    : null;
  const resumed = await providers.resume(provider, checkpoint.providerResume, continuation, workspace, older?.message);
  if (!resumed.ok) {
    await sessions.detach(handoff.sessionId);
    return fail('resume_failed', resumed.message);
  }
  mark('resumed');
  deps.log(
    `activated ${handoff.id}: ${marks
      .slice(1)
      .map(([phase, at], i) => `${phase} +${at - marks[i]![1]} ms`)
      .join(', ')}`,
  );
  return ok({ resumePath: resumed.value.path, note: resumed.value.reason ?? null, drift });
}
