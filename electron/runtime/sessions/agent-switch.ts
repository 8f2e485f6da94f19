/**
 * "Switch agent": an owned session continues on this device with another agent. The running turn
 * is stopped (what it asked is denied), the old agent's process ends, and the new agent starts from
 * a summary continuation of the session (its transcript tail and the workspace as git reads it now),
 * with the session's permission level mapped to its own settings. The change is recorded on the
 * session (shared/agent-switch.ts), said in its transcript and published sealed, so every device
 * shows it in the history like a move and the run view shows each agent's part.
 */
import { agentChangeReason, agentLabel, withProviderChange } from '../../../shared/agent-switch.ts';
import { fail, ok, type ActionResult } from '../../../shared/errors.ts';
import type { ProviderId } from '../../../shared/provider.ts';
import type { LocalState } from '../../local-state/local-state.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { Clock } from '../../ports/clock.ts';
import type { GitPort } from '../../ports/git.ts';
import type { ProviderPort } from '../../ports/providers.ts';
import { CONTINUATION_TAIL_ENTRIES, continuationInput } from '../../providers/continuation-input.ts';
import type { EventSender } from './event-sender.ts';
import type { ProviderDriver } from './provider-driver.ts';

export interface AgentSwitchDeps {
  selfId: string;
  selfName: string;
  state: Pick<LocalState, 'session' | 'updateSession' | 'newestTranscript' | 'findTranscriptEntry'>;
  git: Pick<GitPort, 'repos'>;
  providers: Pick<ProviderPort, 'list' | 'resume'>;
  driver: Pick<ProviderDriver, 'attach' | 'detach' | 'saveResumeData'>;
  events: Pick<EventSender, 'note' | 'publishMeta'>;
  /** Stops the running turn, denying what it asks first (permission-service.ts). */
  interrupt(sessionId: string): Promise<ActionResult>;
  setInputBlock(sessionId: string, block: { code: 'not_running'; message: string } | null): void;
  clock: Clock;
  /** Where this part tells what it changed (a session's view, or only its transcript). */
  changes: ChangeSink;
  log(message: string): void;
}

/** Why the session cannot switch to `to` now, or null when it can. */
async function refusal(deps: AgentSwitchDeps, sessionId: string, to: ProviderId): Promise<ActionResult | null> {
  const s = deps.state.session(sessionId);
  if (!s) return fail('not_found', 'No such session.');
  if (s.ownerDeviceId !== deps.selfId) return fail('not_owner', 'Switch the agent on the device that runs the session.');
  if (s.inputBlock !== null || s.needsAttention) return fail('not_running', 'The session does not run here now; switch once it does.');
  if (s.provider === to) return fail('same_agent', `The session already runs with ${agentLabel(to)}.`);
  const here = (await deps.providers.list()).find((p) => p.id === to);
  if (!here?.available) return fail('target_missing_provider', `${agentLabel(to)} is not available on this device.`);
  return null;
}

/** Continues owned session `sessionId` here with agent `to`, from a summary; resolves once the new agent's first turn began. */
export async function switchAgent(deps: AgentSwitchDeps, sessionId: string, to: ProviderId): Promise<ActionResult> {
  const refused = await refusal(deps, sessionId, to);
  if (refused) return refused;
  const before = deps.state.session(sessionId)!;
  const from = before.provider;
  deps.setInputBlock(sessionId, { code: 'not_running', message: `Switching to ${agentLabel(to)}…` });
  deps.changes.emit('sessionChanged', { sessionId });
  await deps.interrupt(sessionId);
  await deps.driver.detach(sessionId);
  const repos = await deps.git.repos({ workspace: before.workspace, repoPaths: before.repoPaths });
  const newest = deps.state.newestTranscript(sessionId, CONTINUATION_TAIL_ENTRIES);
  const continuation = continuationInput({
    title: before.title,
    ranOn: deps.selfName,
    goal: (await deps.state.findTranscriptEntry(sessionId, (e) => e.role === 'user'))?.text ?? '',
    newest,
    repos: repos.map((r) => ({ relPath: r.relPath, branch: r.branch, commit: r.head })),
    drift: [],
    nextAction: 'Continue where the session left off.',
    previousAgent: agentLabel(from),
  });
  const at = deps.clock();
  const change = { from, to, at, afterEntryId: newest.at(-1)?.id ?? null, deviceId: deps.selfId, handoffId: null };
  deps.state.updateSession(sessionId, (s) => {
    s.provider = to;
    s.providerResume = null;
    s.providerChanges = withProviderChange(s.providerChanges, change);
  });
  const reason = agentChangeReason(from, to);
  deps.events.note(sessionId, `Switched from ${agentLabel(from)} to ${agentLabel(to)} on ${deps.selfName}. ${reason}`);
  const provider = deps.driver.attach(sessionId, to);
  const resumed = await deps.providers.resume(provider, null, continuation, before.workspace, reason);
  if (!resumed.ok) {
    // The new agent would not start: the session goes back to its agent, which this device resumes.
    await deps.driver.detach(sessionId);
    deps.state.updateSession(sessionId, (s) => {
      s.provider = from;
      s.providerResume = before.providerResume;
      s.providerChanges = s.providerChanges.filter((c) => c.at !== at || c.to !== to);
    });
    deps.events.note(sessionId, `${agentLabel(to)} could not start (${resumed.message}); the session stays with ${agentLabel(from)}.`);
    deps.setInputBlock(sessionId, null);
    deps.changes.emit('sessionChanged', { sessionId });
    return fail('switch_failed', `${agentLabel(to)} could not start: ${resumed.message}`);
  }
  deps.setInputBlock(sessionId, null);
  deps.log(`switched session ${sessionId} from ${from} to ${to} (${resumed.value.path})`);
  const published = await deps.events.publishMeta(sessionId);
  if (!published.ok) deps.log(`session metadata not republished: ${published.code}`);
  deps.changes.emit('sessionChanged', { sessionId });
  void deps.driver.saveResumeData(sessionId, provider);
  return ok(undefined);
}
