/**
 * Building the source's checkpoint of a session at its repositories' current commits: the handoff
 * packet of each repository, the provider's export (or the files kept from an earlier one), the
 * agent map, and the whole transcript — read from the log, or merged with what the running provider
 * holds. Reads only; sealing and upload are the source step's (source-steps.ts).
 */
import type { TranscriptEntry } from '../../shared/agents.ts';
import type { Handoff } from '../../shared/api/handoffs.ts';
import { detectedVersion } from '../../shared/cli-version.ts';
import type { ProviderSession } from '../../shared/provider.ts';
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import type { Clock } from '../ports/clock.ts';
import type { CheckpointRepo } from '../ports/git.ts';
import type { KnownRepoFacts, PacketPort, ProviderPort } from '../ports/providers.ts';
import { CHECKPOINT_FORMAT, type Checkpoint, type CheckpointCarry } from './checkpoint.ts';
import { logTranscript, transcriptOf, writeTranscriptFile, type CheckpointTranscript } from './checkpoint-transcript.ts';
import { currentFiles } from './resume-files.ts';
import { mergeEntries } from './transcript-merge.ts';

/** What building a checkpoint uses (of the source step's dependencies). */
export interface CheckpointBuildDeps {
  selfId: string;
  selfName: string;
  state: Pick<LocalState, 'transcriptCount' | 'newestTranscript' | 'transcriptEntries' | 'findTranscriptEntry' | 'findLastTranscriptEntry'>;
  packets: Pick<PacketPort, 'build'>;
  providers: Pick<ProviderPort, 'list'>;
  clock: Clock;
  log(message: string): void;
}

/**
 * What the checkpoint's packet can take as read of `repo` (nothing on a detached or unborn HEAD): its
 * tree is clean (readiness passed) but for the work the move carries.
 */
function knownFacts(repo: CheckpointRepo): KnownRepoFacts | undefined {
  if (repo.branch === null || repo.head === null) return undefined;
  const read = { branch: repo.branch, head: repo.head, uncommitted: repo.uncommitted ?? [] };
  if (repo.baseRef === null || repo.mergeBase === null) return read;
  const changed = repo.changedFiles === null ? {} : { changedFiles: repo.changedFiles };
  return { ...read, base: { ref: repo.baseRef, mergeBase: repo.mergeBase, ...changed } };
}

/**
 * The whole transcript as this device keeps it (Baton's notes and entries of earlier providers
 * included): read from the log as the body is written or, when the running provider holds entries,
 * its merge with them streamed into the scratch file `scratch`.
 */
async function checkpointTranscript(
  deps: CheckpointBuildDeps,
  sessionId: string,
  live: readonly TranscriptEntry[],
  scratch: string,
): Promise<CheckpointTranscript> {
  const { state } = deps;
  if (live.length > 0) return writeTranscriptFile(scratch, mergeEntries(state.transcriptEntries(sessionId), transcriptOf(live)));
  return logTranscript(state, sessionId);
}

/**
 * The checkpoint of `session` at its repositories' current commits (`repos`: as the checkpoint read
 * found them); `scratch`: a file its transcript may be written to (the caller removes it); `carry`:
 * the work the move carries (carried-work.ts), whose bundles the body then holds.
 */
export async function buildCheckpoint(
  deps: CheckpointBuildDeps,
  handoff: Handoff,
  session: Readonly<LocalSession>,
  provider: ProviderSession | undefined,
  repos: readonly CheckpointRepo[],
  scratch: string,
  carry?: CheckpointCarry,
): Promise<Checkpoint> {
  const { packets, selfId, selfName, clock } = deps;
  const firstPrompt = (await deps.state.findTranscriptEntry(session.id, (e) => e.role === 'user'))?.text ?? session.title;
  const lastAssistant = (await deps.state.findLastTranscriptEntry(session.id, (e) => e.role === 'assistant'))?.text ?? '';
  const prose = {
    goal: firstPrompt.slice(0, 2000),
    currentState: lastAssistant.slice(0, 2000),
    nextAction: 'Continue the session on the target device.',
  };
  // The packets take the repositories as the checkpoint read found them (`repos`); they and the
  // provider export are independent: take them together.
  const [exported, detected] = await Promise.all([
    provider?.capabilities.checkpointImport ? provider.exportResumeData() : Promise.resolve(null),
    deps.providers.list(),
  ]);
  const built = await Promise.all(
    repos.map(async (repo) => {
      try {
        return [{ relPath: repo.relPath, packet: await packets.build(repo.path, prose, session.provider, knownFacts(repo)) }];
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
      permissionRules: session.permissions.rules,
      sourcePlatform: process.platform,
      sourceWorkspace: session.workspace,
      // The move asked the target for another agent (move-request.ts): it continues from a summary.
      ...(session.continueWith?.handoffId === handoff.id && { continueWith: session.continueWith.provider }),
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
    // With anything the running provider holds that it has not reported yet.
    transcript: await checkpointTranscript(deps, session.id, snapshot?.transcript ?? [], scratch),
    ...(carry ? { carry } : {}),
  };
}
