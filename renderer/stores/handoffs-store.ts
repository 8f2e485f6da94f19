/** Moves: eligibility for the Move dialog, blocked readiness with its remediation, and history. */
import { create } from 'zustand';
import type { ActionResult, EligibilityView, HandoffView, MoveBlockView } from '../../shared/device-api.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import { api, errorMessage } from '../api/device-api.ts';

export interface BlockedMove {
  targetDeviceId: string;
  targetName: string;
  report: ReadinessReport;
  /** The last remediation's refusal, if any. */
  actionError: string | null;
}

export type MoveOutcome = { kind: 'started' } | { kind: 'blocked' } | { kind: 'refused'; message: string };

/** The session's own blocked move (kept by the device, on every device) as the alert shows it. */
export function blockedOfSession(block: MoveBlockView): BlockedMove {
  return {
    targetDeviceId: block.targetDeviceId,
    targetName: block.targetName,
    report: { ready: false, blockers: block.blockers, repos: [], evaluatedAt: block.at },
    actionError: null,
  };
}

interface HandoffsState {
  eligibility: Record<string, EligibilityView[] | undefined>;
  blocked: Record<string, BlockedMove | undefined>;
  history: Record<string, HandoffView[] | undefined>;
  pending: Record<string, string | undefined>;
  loadEligibility(sessionId: string): Promise<void>;
  startMove(sessionId: string, targetDeviceId: string, targetName: string, freshClone?: boolean): Promise<MoveOutcome>;
  checkAgain(sessionId: string, fallback?: BlockedMove): Promise<MoveOutcome>;
  cancelMove(sessionId: string): Promise<ActionResult>;
  push(sessionId: string, repo: string): Promise<void>;
  commit(sessionId: string, repo: string, message: string): Promise<boolean>;
  dismissBlocked(sessionId: string): void;
  loadHistory(sessionId: string): Promise<void>;
  applyHandoff(handoff: HandoffView, thisDeviceId: string | null): void;
}

export const useHandoffsStore = create<HandoffsState>()((set, get) => {
  const setBlocked = (sessionId: string, blocked: BlockedMove | undefined) =>
    set((state) => ({ blocked: { ...state.blocked, [sessionId]: blocked } }));
  const setPending = (sessionId: string, what: string | undefined) =>
    set((state) => ({ pending: { ...state.pending, [sessionId]: what } }));

  /** Runs one remediation and replaces the report with the fresh evaluation it returns. */
  async function remediate(
    sessionId: string,
    label: string,
    run: () => Promise<{ result: ActionResult; report: ReadinessReport }>,
  ): Promise<boolean> {
    const current = get().blocked[sessionId];
    if (!current) return false;
    setPending(sessionId, label);
    try {
      const { result, report } = await run();
      setBlocked(sessionId, { ...current, report, actionError: result.ok ? null : result.message });
      return result.ok;
    } catch (error) {
      setBlocked(sessionId, { ...current, actionError: errorMessage(error) });
      return false;
    } finally {
      setPending(sessionId, undefined);
    }
  }

  return {
    eligibility: {},
    blocked: {},
    history: {},
    pending: {},
    loadEligibility: async (sessionId) => {
      const list = await api.moveEligibility({ sessionId });
      set((state) => ({ eligibility: { ...state.eligibility, [sessionId]: list } }));
    },
    startMove: async (sessionId, targetDeviceId, targetName, freshClone = false) => {
      setPending(sessionId, 'move');
      try {
        const result = await api.startMove({ sessionId, targetDeviceId, ...(freshClone ? { freshClone } : {}) });
        if (result.ok) {
          setBlocked(sessionId, undefined);
          return { kind: 'started' };
        }
        if ('report' in result) {
          setBlocked(sessionId, { targetDeviceId, targetName, report: result.report, actionError: null });
          return { kind: 'blocked' };
        }
        return { kind: 'refused', message: result.message };
      } catch (error) {
        return { kind: 'refused', message: errorMessage(error) };
      } finally {
        setPending(sessionId, undefined);
      }
    },
    checkAgain: async (sessionId, fallback) => {
      const current = get().blocked[sessionId] ?? fallback;
      if (!current) return { kind: 'refused', message: 'No blocked move to check.' };
      const outcome = await get().startMove(sessionId, current.targetDeviceId, current.targetName);
      if (outcome.kind === 'refused') setBlocked(sessionId, { ...current, actionError: outcome.message });
      return outcome;
    },
    cancelMove: (sessionId) => api.cancelMove({ sessionId }),
    push: async (sessionId, repo) => {
      await remediate(sessionId, 'push', () => api.pushRepo({ sessionId, repo }));
    },
    commit: (sessionId, repo, message) => remediate(sessionId, 'commit', () => api.commitAll({ sessionId, repo, message })),
    dismissBlocked: (sessionId) => setBlocked(sessionId, undefined),
    loadHistory: async (sessionId) => {
      const list = await api.handoffHistory({ sessionId });
      set((state) => ({ history: { ...state.history, [sessionId]: list } }));
    },
    applyHandoff: (handoff, thisDeviceId) => {
      set((state) => {
        const list = state.history[handoff.sessionId] ?? [];
        const known = list.some((h) => h.id === handoff.id);
        const history = known ? list.map((h) => (h.id === handoff.id ? handoff : h)) : [handoff, ...list];
        return { history: { ...state.history, [handoff.sessionId]: history } };
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
  };
});
