/**
 * Moves: eligibility and this device's readiness for the Move dialog, a blocked move with its
 * remediation (what this page learnt; the session's own kept one comes with its view), and history.
 */
import { create } from 'zustand';
import type { ActionResult, EligibilityView, HandoffView, MoveBlockView, SessionView } from '../../shared/device-api.ts';
import type { ProviderId } from '../../shared/provider.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import { errorMessage } from '../model/error-words.ts';
import { api } from '../api/device-api.ts';
import { isTargetBlocker } from '../model/readiness-words.ts';

/** A blocked move as the run view shows it: the target, the last evaluation, and the last remediation's refusal. */
export interface BlockedMove {
  targetDeviceId: string;
  targetName: string;
  /** The agent the move chose to continue with, when the person picked one (a summary continuation). */
  provider?: ProviderId;
  /** The last evaluation (its `ready` turns true once every item is fixed). */
  report: ReadinessReport;
  /** The last remediation's refusal, if any. */
  actionError: string | null;
}

/** How a move is to be made: into a fresh clone, and with which agent (undefined: the default one). */
export interface MoveChoice {
  freshClone?: boolean;
  provider?: ProviderId | undefined;
}

export type MoveOutcome = { kind: 'started' } | { kind: 'blocked' } | { kind: 'refused'; message: string };

/** What this page holds of one session's moves; the whole record goes when the session leaves the device's list. */
export interface SessionMoves {
  eligibility: EligibilityView[] | undefined;
  /** This device's side of moving the session, as last evaluated (the Move dialog asks as it opens). */
  readiness: ReadinessReport | undefined;
  blocked: BlockedMove | undefined;
  /** When the blocked move the user put away was evaluated: an alert no newer stays away. */
  dismissed: number | undefined;
  history: HandoffView[] | undefined;
  /** The act under way ('move', 'push', 'commit'), while one is. */
  pending: string | undefined;
  /** When this device last asked the owner to move the session here (Move here), until a move or a block shows. */
  asked: number | undefined;
}

const NOTHING_YET: SessionMoves = {
  eligibility: undefined,
  readiness: undefined,
  blocked: undefined,
  dismissed: undefined,
  history: undefined,
  pending: undefined,
  asked: undefined,
};

interface HandoffsState {
  /** One record per session this page acted on or loaded moves of. */
  sessions: Record<string, SessionMoves | undefined>;
  loadEligibility(sessionId: string): Promise<void>;
  loadReadiness(sessionId: string): Promise<void>;
  /** `freshClone`: the target clones the repositories afresh rather than using its checkout of them (which blocked the move). */
  /** `options.provider`: the agent the target continues with, when the person picked one other than the default. */
  startMove(sessionId: string, targetDeviceId: string, targetName: string, options?: MoveChoice): Promise<MoveOutcome>;
  /**
   * Runs the blocked move `shown` again: it starts when nothing blocks it any more. Off the owner
   * (`ownedHere` false) it asks the owner again, which checks and starts it there.
   */
  checkAgain(sessionId: string, shown: BlockedMove, ownedHere?: boolean): Promise<MoveOutcome>;
  /** Off the owner: asks the owner to move the session here (refused at once when it is offline). */
  moveHere(sessionId: string): Promise<ActionResult>;
  cancelMove(sessionId: string): Promise<ActionResult>;
  /** Continues an owned session here with another agent, from a summary. */
  switchAgent(sessionId: string, provider: ProviderId): Promise<ActionResult>;
  /** Runs the failed activation of a session that arrived here again. */
  retryActivation(sessionId: string): Promise<ActionResult>;
  /** Pushes one repository; `shown` is the blocked move on screen, if any, which the fresh evaluation updates. */
  push(sessionId: string, repo: string, shown?: BlockedMove): Promise<void>;
  commit(sessionId: string, repo: string, message: string, shown?: BlockedMove): Promise<boolean>;
  dismissBlocked(sessionId: string, shown: BlockedMove): void;
  loadHistory(sessionId: string): Promise<void>;
  applyHandoff(handoff: HandoffView, thisDeviceId: string | null): void;
  /** Forgets the record of every session not in `sessionIds` (the device's list): those sessions went away. */
  keepSessions(sessionIds: readonly string[]): void;
}

export const useHandoffsStore = create<HandoffsState>()((set, get) => {
  /** Changes part of one session's record (made on first use). */
  const update = (sessionId: string, change: (moves: SessionMoves) => Partial<SessionMoves>) =>
    set((state) => {
      const moves = state.sessions[sessionId] ?? NOTHING_YET;
      return { sessions: { ...state.sessions, [sessionId]: { ...moves, ...change(moves) } } };
    });
  const setBlocked = (sessionId: string, blocked: BlockedMove | undefined) => update(sessionId, () => ({ blocked }));
  const setPending = (sessionId: string, pending: string | undefined) => update(sessionId, () => ({ pending }));
  const setReadiness = (sessionId: string, readiness: ReadinessReport) => update(sessionId, () => ({ readiness }));

  /** Runs one remediation; the fresh evaluation it returns replaces this device's readiness and the blocked move's report. */
  async function remediate(
    sessionId: string,
    label: string,
    shown: BlockedMove | undefined,
    run: () => Promise<{ result: ActionResult; report: ReadinessReport }>,
  ): Promise<boolean> {
    const base = get().sessions[sessionId]?.blocked ?? shown;
    setPending(sessionId, label);
    try {
      const { result, report } = await run();
      setReadiness(sessionId, report);
      if (base)
        setBlocked(sessionId, { ...base, report: withTargetBlockers(report, base.report), actionError: result.ok ? null : result.message });
      return result.ok;
    } catch (error) {
      if (base) setBlocked(sessionId, { ...base, actionError: errorMessage(error) });
      return false;
    } finally {
      setPending(sessionId, undefined);
    }
  }

  return {
    sessions: {},
    loadEligibility: async (sessionId) => {
      const eligibility = await api.moveEligibility({ sessionId });
      update(sessionId, () => ({ eligibility }));
    },
    loadReadiness: async (sessionId) => setReadiness(sessionId, await api.checkReadiness({ sessionId })),
    startMove: async (sessionId, targetDeviceId, targetName, { freshClone = false, provider } = {}) => {
      setPending(sessionId, 'move');
      try {
        const choice = { ...(freshClone ? { freshClone } : {}), ...(provider ? { provider } : {}) };
        const result = await api.startMove({ sessionId, targetDeviceId, ...choice });
        if (result.ok) {
          setBlocked(sessionId, undefined);
          return { kind: 'started' };
        }
        if ('report' in result) {
          setBlocked(sessionId, {
            targetDeviceId,
            targetName,
            ...(provider ? { provider } : {}),
            report: result.report,
            actionError: null,
          });
          return { kind: 'blocked' };
        }
        return { kind: 'refused', message: result.message };
      } catch (error) {
        return { kind: 'refused', message: errorMessage(error) };
      } finally {
        setPending(sessionId, undefined);
      }
    },
    moveHere: async (sessionId) => {
      setPending(sessionId, 'move');
      try {
        const result = await api.moveHere({ sessionId });
        if (result.ok) update(sessionId, () => ({ asked: Date.now() }));
        return result;
      } catch (error) {
        return { ok: false, code: 'failed', message: errorMessage(error) };
      } finally {
        setPending(sessionId, undefined);
      }
    },
    checkAgain: async (sessionId, shown, ownedHere = true) => {
      if (!ownedHere) {
        const asked = await get().moveHere(sessionId);
        if (!asked.ok) setBlocked(sessionId, { ...shown, actionError: asked.message });
        return asked.ok ? { kind: 'started' } : { kind: 'refused', message: asked.message };
      }
      const outcome = await get().startMove(sessionId, shown.targetDeviceId, shown.targetName, { provider: shown.provider });
      if (outcome.kind === 'refused') setBlocked(sessionId, { ...shown, actionError: outcome.message });
      return outcome;
    },
    cancelMove: (sessionId) => api.cancelMove({ sessionId }),
    switchAgent: (sessionId, provider) => api.switchAgent({ sessionId, provider }),
    retryActivation: (sessionId) => api.retryActivation({ sessionId }),
    push: async (sessionId, repo, shown) => {
      await remediate(sessionId, 'push', shown, () => api.pushRepo({ sessionId, repo }));
    },
    commit: (sessionId, repo, message, shown) => remediate(sessionId, 'commit', shown, () => api.commitAll({ sessionId, repo, message })),
    dismissBlocked: (sessionId, shown) => update(sessionId, () => ({ blocked: undefined, dismissed: shown.report.evaluatedAt })),
    loadHistory: async (sessionId) => {
      const history = await api.handoffHistory({ sessionId });
      update(sessionId, () => ({ history }));
    },
    applyHandoff: (handoff, thisDeviceId) => {
      update(handoff.sessionId, ({ history: list = [] }) => {
        const known = list.some((h) => h.id === handoff.id);
        return { history: known ? list.map((h) => (h.id === handoff.id ? handoff : h)) : [handoff, ...list] };
      });
      const recheckFailed = handoff.state === 'cancelled' && handoff.blockers.length > 0 && handoff.sourceDeviceId === thisDeviceId;
      if (recheckFailed) {
        const report: ReadinessReport = { ready: false, blockers: handoff.blockers, repos: [], evaluatedAt: Date.now() };
        setBlocked(handoff.sessionId, {
          targetDeviceId: handoff.targetDeviceId,
          targetName: handoff.targetName,
          report,
          actionError: null,
        });
      }
    },
    keepSessions: (sessionIds) =>
      set((state) => {
        const kept = new Set(sessionIds);
        const gone = Object.keys(state.sessions).filter((sessionId) => !kept.has(sessionId));
        if (gone.length === 0) return state;
        return { sessions: Object.fromEntries(Object.entries(state.sessions).filter(([sessionId]) => kept.has(sessionId))) };
      }),
  };
});

/**
 * A remediation's fresh evaluation is of this device's side only: the target's blockers of the
 * report it replaces still stand until a check says otherwise.
 */
function withTargetBlockers(fresh: ReadinessReport, before: ReadinessReport): ReadinessReport {
  const sourceCodes = new Set(fresh.blockers.map((b) => b.code));
  const target = before.blockers.filter((b) => isTargetBlocker(b) && !sourceCodes.has(b.code));
  const blockers = [...fresh.blockers, ...target];
  return { ...fresh, blockers, ready: blockers.length === 0 };
}

/** The session's kept blocked move as the alert shows it: its blockers as an evaluation made when they were found. */
function fromKept(kept: MoveBlockView): BlockedMove {
  const report = { ready: kept.blockers.length === 0, blockers: kept.blockers, repos: [], evaluatedAt: kept.at };
  return { targetDeviceId: kept.targetDeviceId, targetName: kept.targetName, report, actionError: null };
}

/**
 * The blocked move to show for a session: what this page learnt or the one the session keeps,
 * whichever was evaluated later; none while a move runs or once the user put that one away.
 */
export function shownBlocked(
  local: BlockedMove | undefined,
  kept: MoveBlockView | null,
  dismissedAt: number | undefined,
  moving: boolean,
): BlockedMove | undefined {
  if (moving) return undefined;
  const fromSession = kept ? fromKept(kept) : undefined;
  const newest = !local ? fromSession : !fromSession || local.report.evaluatedAt >= fromSession.report.evaluatedAt ? local : fromSession;
  if (!newest || (dismissedAt !== undefined && newest.report.evaluatedAt <= dismissedAt)) return undefined;
  return newest;
}

/** The blocked move the run view of `session` shows (shownBlocked), kept current. */
export function useBlockedMove(session: SessionView): BlockedMove | undefined {
  const local = useHandoffsStore((state) => state.sessions[session.id]?.blocked);
  const dismissedAt = useHandoffsStore((state) => state.sessions[session.id]?.dismissed);
  return shownBlocked(local, session.blocked, dismissedAt, session.activeHandoff !== null);
}
