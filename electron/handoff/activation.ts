/**
 * Activation on the target: fetch the checkpoint body, verify its digest, unseal it (all three in one
 * streamed pass, checkpoint-transfer.ts), pin the workspace, check drift, merge the transcript — and
 * only then resume the provider (openCheckpoint does all before the import, so the target can begin it
 * ahead: checkpoint-openings.ts). Every check runs before any provider call; the first failure is
 * returned with its code and nothing after it runs. The download and the import report how far they
 * got through the progress sink.
 */
import { rm } from 'node:fs/promises';
import type { DriftWarning, Handoff, ResumePath } from '../../shared/api/handoffs.ts';
import type { Carried } from '../../shared/carry.ts';
import type { TargetFolderView } from '../../shared/move-views.ts';
import { detectedVersion, olderCliReason } from '../../shared/cli-version.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import { isProviderId, PROVIDER_LABELS } from '../../shared/provider.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { Clock } from '../ports/clock.ts';
import type { GitPort } from '../ports/git.ts';
import type { PacketPort, ProviderPort } from '../ports/providers.ts';
import type { ProgressSink } from '../ports/progress.ts';
import type { SealPort } from '../ports/seal.ts';
import type { SessionsPort } from '../ports/sessions.ts';
import type { Checkpoint } from './checkpoint.ts';
import { carriedOf, pinRequests } from './carried-pin.ts';
import { receiveCheckpoint, type ReceiveCode, type ReceivedCheckpoint } from './checkpoint-transfer.ts';
import { continuationInput } from '../providers/continuation-input.ts';
import { cloneRemoteUrl, moveNote } from './move-note.ts';
import { mergeEntries } from './transcript-merge.ts';
import { providerStaging } from './part-staging.ts';
import { agentChangeOf, checkpointAgent, importRefusedFor, recordAgentChange, summaryFacts } from './agent-change.ts';
import type { HandoffConfig } from './handoff-config.ts';
import { checkoutPlaces } from './checkout-places.ts';
import { folderChange } from './folder-change.ts';
import { percentOf } from './progress-reports.ts';

/** How the provider resumed, why that way (when it fell back), the drift found on the pinned tree, and the folder it runs in. */
export interface Activated {
  resumePath: ResumePath;
  note: string | null;
  drift: DriftWarning[];
  folder: TargetFolderView;
  /** The move continued the session with another agent (agent-change.ts), else null. */
  providerChange: { from: string; to: string } | null;
  /** The uncommitted work and unpushed commits the move carried, restored and proved here (null: none). */
  carried: Carried | null;
}
export type ActivationResult = Result<Activated>;

/** What activation uses, and nothing more. */
export interface ActivationDeps {
  selfId: string;
  /** This device's name, as the transcript, the move's outcome and the agent's note of where it now runs name it. */
  selfName: string;
  /** Activation's session write is not durable: its caller's next durable write of the session settles it. */
  state: Pick<LocalState, 'readSession' | 'readSessions' | 'updateSession' | 'rewriteTranscript' | 'exportsDir'>;
  backend: Pick<BackendPort, 'getBlobTo'>;
  seal: Pick<SealPort, 'startCheckpointOpen'>;
  git: Pick<GitPort, 'pin' | 'locate'>;
  packets: Pick<PacketPort, 'drift'>;
  providers: Pick<ProviderPort, 'list' | 'resume' | 'create'>;
  sessions: Pick<SessionsPort, 'attach' | 'detach' | 'note'>;
  config: Pick<HandoffConfig, 'workspaceRoot'>;
  clock: Clock;
  log(message: string): void;
  /** Where the checkpoint download, the workspace fetch or clone and the import report how far they got. */
  progress: ProgressSink;
}

/** A checkpoint fetched, verified and unsealed, its workspace pinned and its drift read: all but the import and resume. */
export interface Opened {
  checkpoint: Checkpoint;
  pinned: { workspace: string; repoPaths: string[] };
  drift: DriftWarning[];
  /** When each part ended (for the log). */
  marks: [string, number][];
}

/** What a summary continuation of `checkpoint` is rendered from: its packet's facts, the drift found, the next action. */
export function checkpointContinuation(checkpoint: Checkpoint, drift: DriftWarning[], nextAction: string, moveNote?: string) {
  return continuationInput({
    ...summaryFacts(checkpoint),
    title: checkpoint.meta.title,
    ranOn: checkpoint.sourceDeviceName,
    goal: checkpoint.meta.prompt,
    newest: checkpoint.transcript.newest,
    repos: checkpoint.repos,
    drift,
    nextAction,
    ...(moveNote !== undefined && { moveNote }),
  });
}

type Report = (step: 'download' | 'import', label: string, done: number | null, total: number | null, percent?: number) => void;

/** The progress of `handoff`'s download and import, in the sink's terms. */
function reporter(deps: Pick<ActivationDeps, 'progress'>, handoff: Handoff): Report {
  return (step, label, done, total, percent) =>
    deps.progress({
      handoffId: handoff.id,
      sessionId: handoff.sessionId,
      step,
      label,
      doneBytes: done,
      totalBytes: total,
      percent: percent ?? (done !== null && total !== null ? percentOf(done, total) : null),
    });
}

/**
 * Fetches the checkpoint body of `handoff`, verifies its digest and unseals it (one streamed pass)
 * into the handoff's private staging folder, each provider file through its provider's line rewriter
 * (part-staging.ts). Writes nothing outside staging and starts no provider, so it may begin before
 * the session is this device's; a failure is returned with its code.
 */
export async function receiveStaged(
  deps: Pick<ActivationDeps, 'selfId' | 'backend' | 'seal' | 'state' | 'progress' | 'git' | 'providers' | 'config' | 'log'>,
  handoff: Handoff,
): Promise<Result<ReceivedCheckpoint, ReceiveCode>> {
  if (!handoff.checkpoint) return fail('checkpoint_missing', 'The handoff carries no checkpoint.');
  const report = reporter(deps, handoff);
  report('download', 'checkpoint', 0, handoff.checkpoint.size);
  return receiveCheckpoint(
    deps,
    handoff,
    deps.state.exportsDir(handoff.sessionId, handoff.id),
    (done, total) => report('download', 'checkpoint', done, total),
    providerStaging(deps, handoff.sessionId),
  );
}

/**
 * Receives the checkpoint of `handoff` (or takes what `received` already got of it: see
 * receiveStaged), pins the workspace and checks drift. No provider is touched: the first failure is
 * returned with its code.
 */
export async function openCheckpoint(
  deps: Omit<ActivationDeps, 'sessions'>,
  handoff: Handoff,
  received?: Promise<Result<ReceivedCheckpoint, ReceiveCode>>,
): Promise<Result<Opened>> {
  const { git, packets, clock } = deps;
  const marks: [string, number][] = [['start', clock()]];
  const mark = (phase: string) => marks.push([phase, clock()]);
  const got = await (received ?? receiveStaged(deps, handoff));
  if (!got.ok) return fail(got.code, got.message);
  const { checkpoint, stagingDir } = got.value;
  mark('verified');
  // Carried work goes with its repository's pin (carried-pin.ts): restored and proved before anything resumes.
  const requests = pinRequests(checkpoint);
  if (!requests.ok) {
    await rm(stagingDir, { recursive: true, force: true });
    return requests;
  }
  const pinned = await git.pin(requests.value, checkoutPlaces(deps, handoff.sessionId), (progress) =>
    deps.progress({ handoffId: handoff.id, sessionId: handoff.sessionId, ...progress }),
  );
  // The bundles are in the repositories now (or refused): they are not kept.
  await Promise.all((checkpoint.carry?.repos ?? []).map((repo) => rm(repo.bundle.path, { force: true })));
  if (!pinned.ok) {
    await rm(stagingDir, { recursive: true, force: true });
    return fail(pinned.code, pinned.message);
  }
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
 * Fetches, verifies, unseals, pins, imports and resumes the checkpoint of `handoff`; `opened`: what
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
  const report = reporter(deps, handoff);
  const workspace = pinned.workspace;
  // Read before the record names the new folder: a session back on a device it ran on says when its folder changed.
  const folder = folderChange({
    deviceName: deps.selfName,
    previous: state.readSession(handoff.sessionId)?.workspace ?? '',
    now: workspace,
    places: checkoutPlaces(deps, handoff.sessionId),
  });
  report('import', 'transcript', null, null, 0);
  // Merged by entry identity: whatever this device had (its own notes, entries it pulled) stays.
  // Streamed from the log and the staged entry lines: appended to the log when the merge only adds
  // after it, else the log is rewritten line by line.
  try {
    await state.rewriteTranscript(handoff.sessionId, (mine) => mergeEntries(mine, checkpoint.transcript));
  } catch (error) {
    return fail('transcript_unwritable', `The session's transcript could not be written on this device: ${(error as Error).message}`);
  }
  await checkpoint.transcript.discard();
  report('import', 'transcript', null, null, 100);
  const change = agentChangeOf(checkpoint);
  const carried = carriedOf(checkpoint);
  const afterEntryId = checkpoint.transcript.newest.at(-1)?.id ?? null;
  state.updateSession(
    handoff.sessionId,
    (s) => {
      s.workspace = workspace;
      s.repoPaths = pinned.repoPaths;
      s.freshCloneOn = null;
      s.ownerDeviceId = selfId;
      s.generation = Math.max(s.generation, handoff.generation + 1);
      s.agents = checkpoint.agents;
      s.providerResume = checkpoint.providerResume;
      // The target's provider is made (attach, below) with the level the session ran with on the source.
      if (checkpoint.meta.permission !== undefined) s.permission = checkpoint.meta.permission;
      // "Allow for this session" rules came with it; a request of the source's run waits for nobody here.
      s.permissions = { ...s.permissions, rules: checkpoint.meta.permissionRules ?? s.permissions.rules, pending: [] };
      s.repos = checkpoint.repos.map(({ relPath, remoteUrl, branch }) => ({ relPath, remoteUrl, branch }));
      if (change) recordAgentChange(s, change, { handoffId: handoff.id, deviceId: selfId, afterEntryId, time: clock() });
      // Written behind: what settles the record before `completed` is the caller's next durable write
      // (clearing the input block); a restart before it activates this checkpoint again.
    },
    false,
  );
  // Only now, with the checkpoint verified and the workspace pinned, does a provider start: the
  // session's own, or the one the move asked for, which continues from a summary.
  const agent = checkpointAgent(checkpoint);
  const provider = sessions.attach(handoff.sessionId, agent);
  const providerId = isProviderId(checkpoint.meta.provider) ? checkpoint.meta.provider : null;
  const version = providerId ? detectedVersion(await providers.list(), providerId) : null;
  const note = moveNote({
    from: {
      name: checkpoint.sourceDeviceName,
      platform: checkpoint.meta.sourcePlatform ?? null,
      workspace: checkpoint.meta.sourceWorkspace ?? null,
      cliVersion: checkpoint.meta.providerVersion ?? null,
    },
    to: { name: deps.selfName, platform: process.platform, workspace, cliVersion: version },
    // Another agent: the CLI versions of two agents are not compared.
    cliLabel:
      change === null && providerId !== null && providerId !== 'demo' && providerId !== 'command' ? PROVIDER_LABELS[providerId] : null,
    remotes: checkpoint.repos.map((r, i) => ({
      relPath: r.relPath,
      source: r.remoteUrl,
      target: pinned.repoPaths[i] === undefined ? null : cloneRemoteUrl(pinned.repoPaths[i], r.branch),
    })),
    ...(carried ? { carried } : {}),
  });
  const continuation = checkpointContinuation(checkpoint, drift, 'Continue where the session left off.', note);
  const older =
    isProviderId(checkpoint.meta.provider) && change === null
      ? olderCliReason(checkpoint.meta.provider, { name: 'The target device', version }, checkpoint.meta.providerVersion ?? null)
      : null;
  const label = isProviderId(agent) ? `${PROVIDER_LABELS[agent]} session` : 'session';
  report('import', label, null, null, 0);
  const refused = importRefusedFor(checkpoint) ?? older?.message;
  const resumed = await providers.resume(provider, checkpoint.providerResume, continuation, workspace, refused, (done, total) =>
    report('import', label, done, total),
  );
  report('import', label, null, null, 100);
  if (!resumed.ok) {
    await sessions.detach(handoff.sessionId);
    return fail('resume_failed', resumed.message);
  }
  mark('resumed');
  if (folder.changeNote) sessions.note(handoff.sessionId, folder.changeNote);
  // A summary continuation's prompt told the agent already; an imported session reads it with the next input.
  if (resumed.value.path === 'checkpoint-import')
    state.updateSession(handoff.sessionId, (s) => {
      s.agentNote = note;
    });
  deps.log(
    `activated ${handoff.id}: ${marks
      .slice(1)
      .map(([phase, at], i) => `${phase} +${at - marks[i]![1]} ms`)
      .join(', ')}`,
  );
  return ok({ resumePath: resumed.value.path, note: resumed.value.reason ?? null, drift, folder, providerChange: change, carried });
}
