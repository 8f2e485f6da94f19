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
import { api, errorMessage } from '../api/device-api.ts';
import { withActivity, withHandoff, withViews } from '../components/session-state.ts';

interface SessionsState {
  sessions: SessionView[];
  loaded: boolean;
  details: Record<string, SessionDetail | null>;
  providers: ProviderView[];
  error: string | null;
  load(): Promise<void>;
  loadDetail(sessionId: string): Promise<void>;
  loadProviders(): Promise<void>;
  startSession(input: DeviceApiInput<'startSession'>): Promise<Result<SessionView>>;
  /** This machine's sessions of a CLI provider for a workspace, newest first. */
  listAgentSessions(input: DeviceApiInput<'listAgentSessions'>): Promise<Result<ExistingSessionView[]>>;
  /** Adopts one of them as a Baton session owned here. */
  adoptSession(input: DeviceApiInput<'adoptSession'>): Promise<Result<SessionView>>;
  sendMessage(sessionId: string, text: string): Promise<ActionResult>;
  setSessions(sessions: SessionView[]): void;
  setDetail(detail: SessionDetail): void;
  /** Folds an agent's activity into the loaded detail (reloading it when entries were missed). */
  applyActivity(activity: SessionActivity): void;
  applyHandoff(handoff: HandoffView): void;
}

/** Lists a session just started or adopted here at the top (events bring the rest). */
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
  loadProviders: async () => {
    set({ providers: await api.listProviders({}) });
  },
  startSession: async (input) => withNewSession(await api.startSession(input)),
  listAgentSessions: (input) => api.listAgentSessions(input),
  adoptSession: async (input) => withNewSession(await api.adoptSession(input)),
  sendMessage: (sessionId, text) => api.sendMessage({ sessionId, text }),
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
  const { agents: _agents, transcript: _transcript, ...view } = detail;
  return view;
}
