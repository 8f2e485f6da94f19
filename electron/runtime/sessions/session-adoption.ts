/**
 * Adopting one of this machine's own CLI sessions (a Claude Code or Codex session the user ran
 * before Baton) as a Baton session owned by this device. The provider binds to that very CLI
 * session (no new one is started); the history read from the CLI's file becomes the session's
 * transcript and agent map, appended sealed like any other; from then on it runs and moves like a
 * session started here.
 */
import type { ExistingSessionView } from '../../../shared/device-api.ts';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import { PROVIDER_CAPABILITIES, PROVIDER_LABELS, type ExistingSession, type ProviderSession } from '../../../shared/provider.ts';
import type { LocalSession, LocalState } from '../../local-state/local-state.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { ProviderPort } from '../../ports/providers.ts';
import type { SessionService } from './session-service.ts';
import type { NewSessionInput } from './session-start.ts';
import { appendHistory } from './history-append.ts';

export interface AdoptionDeps {
  selfId: string;
  /** This device's name, as the adoption's note in the transcript (seen on every device) names it. */
  selfName?: string;
  state: Pick<LocalState, 'readSessions' | 'session'>;
  sessions: Pick<SessionService, 'checkNew' | 'createRecord' | 'run' | 'append' | 'note' | 'saveResumeData'>;
  providers: Pick<ProviderPort, 'create' | 'existing'>;
  /** Told once the adopted session is made (its view changed). */
  changes: ChangeSink;
}

/** The CLI session id a local session drives (from its provider's export), if any. */
function cliSessionOf(session: Readonly<LocalSession>): string | null {
  const resume = session.providerResume as { sessionId?: unknown } | null;
  return typeof resume?.sessionId === 'string' ? resume.sessionId : null;
}

/** The Baton session on this device that already drives CLI session `sessionId` of `provider`, or null. */
export function adoptedAs(deps: Pick<AdoptionDeps, 'state' | 'selfId'>, provider: string, sessionId: string): string | null {
  const found = deps.state
    .readSessions()
    .find((s) => s.provider === provider && s.ownerDeviceId === deps.selfId && cliSessionOf(s) === sessionId);
  return found?.id ?? null;
}

/** This machine's sessions of `provider` for `workspace`, each with the Baton session that already drives it. */
export async function listAgentSessions(deps: AdoptionDeps, provider: string, workspace: string): Promise<Result<ExistingSessionView[]>> {
  const listed = await deps.providers.existing(provider, workspace);
  if (!listed.ok) return listed;
  return ok(listed.value.map((s: ExistingSession) => ({ ...s, batonSessionId: adoptedAs(deps, s.provider, s.sessionId) })));
}

/**
 * Adopts CLI session `sessionId` of `input.provider` in `input.workspace`: refuses what New session
 * refuses, a provider that cannot adopt, a session already adopted here, and a session the CLI does
 * not have for that workspace (nothing is created then). Resolves to the new session.
 */
export async function adoptSession(deps: AdoptionDeps, input: NewSessionInput & { sessionId: string }): Promise<Result<LocalSession>> {
  const checked = await deps.sessions.checkNew(input);
  if (!checked.ok) return checked;
  const { provider: id, permission } = checked.value;
  const label = PROVIDER_LABELS[id];
  if (!PROVIDER_CAPABILITIES[id].adoption) return fail('unsupported', `${label} has no sessions to adopt.`);
  const already = adoptedAs(deps, id, input.sessionId);
  if (already !== null) return fail('already_adopted', `This ${label} session is already a Baton session here.`, { sessionId: already });
  const provider: ProviderSession = deps.providers.create(id, { permission });
  const bound = provider.adoptExisting
    ? await provider.adoptExisting(input.sessionId, input.workspace)
    : fail('unsupported', `${label} cannot adopt a session.`);
  if (!bound.ok) {
    await provider.stop();
    return fail(bound.code, bound.message);
  }
  const history = provider.snapshot();
  const firstPrompt = history.transcript
    .find((e) => e.role === 'user')
    ?.text.split('\n')[0]
    ?.slice(0, 80);
  const title = input.title?.trim() || firstPrompt || `${label} session ${input.sessionId.slice(0, 8)}`;
  const created = await deps.sessions.createRecord(checked.value, title, history);
  if (!created.ok) {
    await provider.stop();
    return created;
  }
  const sessionId = created.value.id;
  // The history reaches the backend first and in order (a few large events), then the agent map.
  await appendHistory(deps.sessions, sessionId, history.transcript);
  await deps.sessions.append(sessionId, { type: 'agents', agents: history.agents });
  deps.sessions.run(sessionId, provider);
  await deps.sessions.saveResumeData(sessionId, provider);
  deps.sessions.note(
    sessionId,
    `Adopted ${label} session ${input.sessionId} from ${deps.selfName ?? 'this machine'} with ${history.transcript.length} earlier entries; the next message resumes it.`,
  );
  deps.changes.emit('sessionChanged', { sessionId });
  return ok(deps.state.session(sessionId)!);
}
