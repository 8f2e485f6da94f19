/** The device API's session handlers: each delegates to the session service, adoption or the views. */
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import type { Result } from '../../../shared/errors.ts';
import type { LocalSession } from '../../local-state/local-state.ts';
import type { ProviderPort } from '../../ports/providers.ts';
import type { DeviceViews } from '../device-views.ts';
import { adoptSession, listAgentSessions, type AdoptionDeps } from '../sessions/session-adoption.ts';
import type { SessionService } from '../sessions/session-service.ts';

export interface SessionHandlerDeps {
  sessions: Pick<SessionService, 'start' | 'send'>;
  adoption: AdoptionDeps;
  providers: Pick<ProviderPort, 'list'>;
  views: Pick<DeviceViews, 'sessions' | 'detail' | 'transcript' | 'newSession'>;
  /** Fork from here (sessions/session-fork.ts). */
  fork(sessionId: string, handoffId: string): Promise<Result<LocalSession>>;
}

type SessionMethods =
  | 'listProviders'
  | 'listSessions'
  | 'getSession'
  | 'readTranscript'
  | 'startSession'
  | 'listAgentSessions'
  | 'adoptSession'
  | 'sendMessage'
  | 'forkSession';

/** Providers, the session list and detail, a transcript page, a new, adopted or forked session, a message. */
export function sessionHandlers({
  sessions,
  adoption,
  providers,
  views,
  fork,
}: SessionHandlerDeps): Pick<DeviceApiHandlers, SessionMethods> {
  return {
    listProviders: async () => providers.list(),
    listSessions: async () => views.sessions(),
    getSession: async ({ sessionId }) => views.detail(sessionId),
    readTranscript: async ({ sessionId, from, count }) => views.transcript(sessionId, from, count),
    startSession: async (input) => views.newSession(await sessions.start(input)),
    listAgentSessions: async ({ provider, workspace }) => listAgentSessions(adoption, provider, workspace),
    adoptSession: async (input) => views.newSession(await adoptSession(adoption, input)),
    sendMessage: async ({ sessionId, text }) => sessions.send(sessionId, text),
    forkSession: async ({ sessionId, handoffId }) => views.newSession(await fork(sessionId, handoffId)),
  };
}
