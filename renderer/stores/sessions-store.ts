/** The sessions this device knows, the open session's detail, and the providers it can start. */
import { create } from 'zustand';
import type {
  ActionResult,
  DeviceApiInput,
  ExistingSessionView,
  HandoffView,
  ProviderView,
  SessionActivity,
  SessionDetail,
  SessionView,
} from '../../shared/device-api.ts';
import type { Result } from '../../shared/errors.ts';
import { errorMessage } from '../model/error-words.ts';
import { api } from '../api/device-api.ts';
import { withActivity, withEarlier, withHandoff, withViews } from '../model/session-state.ts';
import { TRANSCRIPT_WINDOW } from '../../shared/device-api.ts';

interface SessionsState {
  sessions: SessionView[];
  loaded: boolean;
  details: Record<string, SessionDetail | null>;
  providers: ProviderView[];
  error: string | null;
  load(): Promise<void>;
  loadDetail(sessionId: string): Promise<void>;
  /** Loads the page of transcript entries before the loaded window (a long session is never loaded whole). */
  loadEarlier(sessionId: string): Promise<void>;
  loadProviders(): Promise<void>;
  startSession(input: DeviceApiInput<'startSession'>): Promise<Result<SessionView>>;
  /** This machine's sessions of a CLI provider for a workspace, newest first. */
  listAgentSessions(input: DeviceApiInput<'listAgentSessions'>): Promise<Result<ExistingSessionView[]>>;
  /** Adopts one of them as a Baton session owned here. */
  adoptSession(input: DeviceApiInput<'adoptSession'>): Promise<Result<SessionView>>;
  /** Fork from here: a new session owned here, from a completed move's checkpoint. */
  forkSession(input: DeviceApiInput<'forkSession'>): Promise<Result<SessionView>>;
  sendMessage(sessionId: string, text: string): Promise<ActionResult>;
  /** Answers a permission request of the session (on the owner, or relayed to it). */
  answerPermission(input: DeviceApiInput<'answerPermission'>): Promise<ActionResult>;
  /** On the owner: stops the session's turn. */
  interruptTurn(sessionId: string): Promise<ActionResult>;
  setSessions(sessions: SessionView[]): void;
  setDetail(detail: SessionDetail): void;
  /** Folds an agent's activity into the loaded detail (reloading it when entries were missed). */
  applyActivity(activity: SessionActivity): void;
  applyHandoff(handoff: HandoffView): void;
}

/** Lists a session just started, adopted or forked here at the top (events bring the rest). */
function withNewSession(made: Result<SessionView>): Result<SessionView> {
  if (made.ok) {
    const session = made.value;
    useSessionsStore.setState((state) => ({ sessions: [session, ...state.sessions.filter((s) => s.id !== session.id)] }));
  }
  return made;
}

export const useSessionsStore = create<SessionsState>()((set, get) => ({
  sessions: [],
  loaded: false,
  details: {},
  providers: [],
  error: null,
  load: async () => {
    try {
      set({ sessions: await api.listSessions({}), loaded: true, error: null });
    } catch (error) {
      set({ error: errorMessage(error), loaded: true });
    }
  },
  loadDetail: async (sessionId) => {
    const detail = await api.getSession({ sessionId });
    set((state) => ({ details: { ...state.details, [sessionId]: detail } }));
  },
  loadEarlier: async (sessionId) => {
    const detail = get().details[sessionId];
    if (!detail || detail.transcriptFrom === 0) return;
    const from = Math.max(0, detail.transcriptFrom - TRANSCRIPT_WINDOW);
    const page = await api.readTranscript({ sessionId, from, count: detail.transcriptFrom - from });
    const current = get().details[sessionId];
    if (!page || !current) return;
    const next = withEarlier(current, page);
    if (next === 'reload') return get().loadDetail(sessionId);
    set((state) => ({ details: { ...state.details, [sessionId]: next } }));
  },
  loadProviders: async () => {
    set({ providers: await api.listProviders({}) });
  },
  startSession: async (input) => withNewSession(await api.startSession(input)),
  listAgentSessions: (input) => api.listAgentSessions(input),
  adoptSession: async (input) => withNewSession(await api.adoptSession(input)),
  forkSession: async (input) => withNewSession(await api.forkSession(input)),
  sendMessage: (sessionId, text) => api.sendMessage({ sessionId, text }),
  answerPermission: (input) => api.answerPermission(input),
  interruptTurn: (sessionId) => api.interruptTurn({ sessionId }),
  setSessions: (sessions) => set((state) => ({ sessions, loaded: true, details: withViews(state.details, sessions) })),
  setDetail: (detail) =>
    set((state) => ({
      details: { ...state.details, [detail.id]: detail },
      sessions: state.sessions.some((s) => s.id === detail.id)
        ? state.sessions.map((s) => (s.id === detail.id ? { ...s, ...stripDetail(detail) } : s))
        : [stripDetail(detail), ...state.sessions],
    })),
  applyActivity: (activity) => {
    const detail = get().details[activity.sessionId];
    if (!detail) return;
    const next = withActivity(detail, activity);
    if (next === 'reload') {
      void get()
        .loadDetail(activity.sessionId)
        .catch(() => undefined);
      return;
    }
    set((state) => ({ details: { ...state.details, [activity.sessionId]: next } }));
  },
  applyHandoff: (handoff) =>
    set((state) => {
      const detail = state.details[handoff.sessionId];
      return {
        sessions: state.sessions.map((s) => withHandoff(s, handoff)),
        details: detail ? { ...state.details, [handoff.sessionId]: withHandoff(detail, handoff) } : state.details,
      };
    }),
}));

function stripDetail(detail: SessionDetail): SessionView {
  const { agents: _agents, transcript: _transcript, transcriptFrom: _from, transcriptTotal: _total, ...rest } = detail;
  const { permissionRequests: _requests, permissionOutcomes: _outcomes, ...view } = rest;
  return view;
}
