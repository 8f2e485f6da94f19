/**
 * Fork from here: a new session continued from the checkpoint of one completed move of another,
 * on the device that asks. The checkpoint is fetched and unsealed with its handoff's id (its seal's
 * AD), pinned at its commits in a folder of the fork's own (`<workspace root>/.baton-forks/<id>`,
 * never one a move looks for clones in), put on a new branch that is pushed at once (so the fork
 * can move), and its provider imports the CLI session as a fork under a new CLI session id. The
 * original session — its record, its checkout, its CLI files — is not touched. The backend sees a
 * normal session create (new id, generation 1, owned here) and the fork's sealed events.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Handoff } from '../../../shared/api/handoffs.ts';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import { isProviderId, PROVIDER_CAPABILITIES } from '../../../shared/provider.ts';
import { newId } from '../../crypto/new-id.ts';
import { checkpointContinuation, openCheckpoint, type ActivationDeps, type Opened } from '../../handoff/activation.ts';
import { checkpointAgent, importRefusedFor } from '../../handoff/agent-change.ts';
import { mergeEntries } from '../../handoff/transcript-merge.ts';
import type { LocalSession, LocalState } from '../../local-state/local-state.ts';
import type { BackendPort } from '../../ports/backend.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { RemediationPort } from '../../ports/git.ts';
import { forkHistoryNote, forkNote, type ForkedRepo } from './fork-note.ts';
import { appendHistory } from './history-append.ts';
import type { SessionService } from './session-service.ts';

/** What a fork uses: activation's checkpoint opening, the user's git for its branch, the session service for its record. */
export interface ForkDeps extends Omit<ActivationDeps, 'state' | 'backend' | 'sessions' | 'progress'> {
  state: Pick<LocalState, 'updateSession' | 'rewriteTranscript' | 'exportsDir' | 'session'>;
  backend: Pick<BackendPort, 'getBlobTo' | 'getHandoff'>;
  remediation: Pick<RemediationPort, 'forkBranch'>;
  sessions: Pick<SessionService, 'checkNew' | 'createRecord' | 'attach' | 'detach' | 'saveResumeData' | 'note' | 'append'>;
  /** Told once the fork's view may have changed. */
  changes: ChangeSink;
}

/** The folder a fork's repositories are cloned into: hidden under the root, so no move finds them as clones of the remote. */
export function forkRoot(workspaceRoot: string, forkId: string): string {
  return join(workspaceRoot, '.baton-forks', forkId);
}

/** The fork's branch in a repository that was on `branch`. */
export function forkBranchName(branch: string | null, forkId: string): string {
  return `${branch ?? 'session'}-fork-${forkId.slice(0, 8)}`;
}

const collected = () => fail('checkpoint_collected', 'The checkpoint of this move was collected, so it can no longer be forked from.');

/** The completed handoff of `sessionId` named `handoffId`, whose checkpoint a fork is made from. */
async function forkPoint(deps: Pick<ForkDeps, 'backend'>, sessionId: string, handoffId: string): Promise<Result<Handoff>> {
  const got = await deps.backend.getHandoff(handoffId);
  if (!got.ok) return got;
  if (got.value.sessionId !== sessionId) return fail('invalid_argument', 'That handoff is not one of this session.');
  if (got.value.state !== 'completed' || !got.value.checkpoint) return fail('not_forkable', 'Only a completed move can be forked from.');
  if (!got.value.checkpointKept) return collected();
  return got;
}

/** Opens the checkpoint of `handoff` into the fork's own folder and staging (under the fork's id), pinned at its commits. */
function openForFork(deps: ForkDeps, handoff: Handoff, forkId: string, root: string): Promise<Result<Opened>> {
  const { state } = deps;
  return openCheckpoint(
    {
      ...deps,
      state: {
        // A fork is cloned afresh under its own root: no checkout of another session is a place for it.
        readSession: () => undefined,
        readSessions: () => [],
        updateSession: (id, change, durable) => state.updateSession(id, change, durable),
        rewriteTranscript: (id, through, durable) => state.rewriteTranscript(id, through, durable),
        exportsDir: (_sessionId, handoffId) => state.exportsDir(forkId, handoffId),
      },
      config: { workspaceRoot: root },
      progress: () => undefined,
    },
    handoff,
  );
}

/** The new branch of each pinned repository, pushed (or why not), as the fork's history note tells it. */
async function branchOff(deps: ForkDeps, opened: Opened, forkId: string): Promise<Result<ForkedRepo[]>> {
  const repos: ForkedRepo[] = [];
  for (const [index, repoPath] of opened.pinned.repoPaths.entries()) {
    const repo = opened.checkpoint.repos[index];
    const made = await deps.remediation.forkBranch(repoPath, forkBranchName(repo?.branch ?? null, forkId));
    if (!made.ok) return made;
    const { branch, pushed } = made.value;
    repos.push({
      relPath: repo?.relPath ?? '.',
      remoteUrl: repo?.remoteUrl ?? null,
      branch,
      commit: repo?.commit ?? '',
      pushFailure: pushed.ok ? null : pushed.message,
    });
  }
  return ok(repos);
}

/**
 * Forks session `sessionId` at the checkpoint of its completed handoff `handoffId`: a new session
 * owned here at generation 1, titled "… (fork)", whose history starts with a note of where it came
 * from. Resolves to the fork's record; a failure before the record is made leaves nothing behind.
 */
export async function forkFromHandoff(deps: ForkDeps, sessionId: string, handoffId: string): Promise<Result<LocalSession>> {
  const point = await forkPoint(deps, sessionId, handoffId);
  if (!point.ok) return point;
  const handoff = point.value;
  const forkId = newId();
  const root = forkRoot(deps.config.workspaceRoot, forkId);
  const leave = async () => {
    await rm(root, { recursive: true, force: true });
    await rm(deps.state.exportsDir(forkId, handoffId), { recursive: true, force: true });
  };
  const opened = await openForFork(deps, handoff, forkId, root).catch((error: Error) => fail('fork_failed', error.message));
  if (!opened.ok) {
    await leave();
    return opened.code === 'checkpoint_missing' ? collected() : opened;
  }
  const { checkpoint, pinned, drift } = opened.value;
  // The agent the move continued with (another one, for a move that changed agent), as activation runs it.
  const provider = checkpointAgent(checkpoint);
  const levels = isProviderId(provider) && PROVIDER_CAPABILITIES[provider].permissions;
  // The branch first (a fork that cannot have one is not made), then the record.
  const branchAndRecord = async (): Promise<Result<{ repos: ForkedRepo[] }>> => {
    const branches = await branchOff(deps, opened.value, forkId);
    if (!branches.ok) return branches;
    const permission = levels ? { permission: checkpoint.meta.permission } : {};
    const checked = await deps.sessions.checkNew({ workspace: pinned.workspace, provider, ...permission });
    if (!checked.ok) return checked;
    const title = `${checkpoint.meta.title} (fork)`;
    const created = await deps.sessions.createRecord(checked.value, title, { agents: checkpoint.agents, transcript: [] }, forkId);
    return created.ok ? ok({ repos: branches.value }) : created;
  };
  const recorded = await branchAndRecord();
  if (!recorded.ok) {
    await checkpoint.transcript.discard();
    await leave();
    return recorded;
  }
  await deps.state.rewriteTranscript(forkId, (mine) => mergeEntries(mine, checkpoint.transcript));
  // Every device shows the fork's history: it reaches the backend first, in order, then the agent map.
  await appendHistory(deps.sessions, forkId, checkpoint.transcript.entries());
  await deps.sessions.append(forkId, { type: 'agents', agents: checkpoint.agents });
  await checkpoint.transcript.discard();
  deps.state.updateSession(forkId, (s) => {
    s.permissions = { ...s.permissions, rules: checkpoint.meta.permissionRules ?? s.permissions.rules };
  });
  deps.sessions.note(
    forkId,
    forkHistoryNote({
      title: checkpoint.meta.title,
      sourceDeviceName: checkpoint.sourceDeviceName,
      movedAt: handoff.history[0]?.at ?? handoff.createdAt,
      repos: recorded.value.repos,
    }),
  );
  const agent = deps.sessions.attach(forkId, provider);
  const branches = checkpoint.repos.map((r) => forkBranchName(r.branch, forkId));
  const told = forkNote(checkpoint.meta.title, checkpoint.sourceDeviceName, pinned.workspace, branches);
  const next = 'This is a fork of the session: continue from here in another direction when asked.';
  const continuation = checkpointContinuation(checkpoint, drift, next, told);
  const refused = importRefusedFor(checkpoint);
  const resumed = await deps.providers.resume(agent, checkpoint.providerResume, continuation, pinned.workspace, refused, undefined, true);
  if (!resumed.ok) {
    await deps.sessions.detach(forkId);
    deps.sessions.note(forkId, `The fork's agent could not be started: ${resumed.message}`);
    deps.changes.emit('sessionChanged', { sessionId: forkId });
    return fail('resume_failed', resumed.message);
  }
  // An import says itself that it forked; a summary continuation's reason is told here. A summary
  // continuation's prompt told the agent it is a fork; an imported session reads it with the next input.
  if (resumed.value.path === 'summary-continuation' && resumed.value.reason) deps.sessions.note(forkId, resumed.value.reason);
  if (resumed.value.path === 'checkpoint-import')
    deps.state.updateSession(forkId, (s) => {
      s.agentNote = told;
    });
  await deps.sessions.saveResumeData(forkId, agent);
  deps.changes.emit('sessionChanged', { sessionId: forkId });
  return ok(deps.state.session(forkId)!);
}
