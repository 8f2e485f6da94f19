/**
 * Moves: eligibility and this device's readiness for the Move dialog, what this page learnt of its
 * own acts (a blocked move, a Move here asked, a refusal) — each stamped with the session's owner
 * and generation it was made at, so the run view's panels (model/run-panels.ts) take it only while
 * the session is still there — and history. Every act drawn for a state (`drawnFor`) does nothing
 * but say what changed once the session has moved on; the device refuses it too (its generation).
 */
import { create } from 'zustand';
import type { CarryChoice } from '../../shared/carry.ts';
import type { ActionResult, EligibilityView, HandoffView, SessionView } from '../../shared/device-api.ts';
import { HISTORY_PAGE, MOVE_HERE_MAX_AGE_MS } from '../../shared/device-api.ts';
import type { ProviderId } from '../../shared/provider.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import { errorMessage } from '../model/error-words.ts';
import { api } from '../api/device-api.ts';
import { isTargetBlocker } from '../model/readiness-words.ts';
import {
  blockedPanel,
  movedOnSince,
  runPanels,
  stampOf,
  type BlockedMove,
  type BlockedPanel,
  type PageMemory,
  type RunPanels,
  type Stamp,
} from '../model/run-panels.ts';
import { useDevicesStore } from './devices-store.ts';
import { useSessionsStore } from './sessions-store.ts';
import { useStatusStore } from './status-store.ts';

export type { BlockedMove, BlockedPanel } from '../model/run-panels.ts';

/**
 * How a move is to be made: into a fresh clone, with which agent (undefined: the default one), and
 * whether it carries the uncommitted work and unpushed commits (null: not; undefined: this device's default).
 */
export interface MoveChoice {
  freshClone?: boolean;
  provider?: ProviderId | undefined;
  carry?: CarryChoice | null | undefined;
}

export type MoveOutcome = { kind: 'started' } | { kind: 'blocked' } | { kind: 'refused'; message: string };

/** What this page holds of one session's moves; the whole record goes when the session leaves the device's list. */
export interface SessionMoves extends PageMemory {
  eligibility: EligibilityView[] | undefined;
  /** This device's side of moving the session, as last evaluated (the Move dialog asks as it opens). */
  readiness: ReadinessReport | undefined;
  /** The moves loaded so far, newest first: the newest page, then each older page asked for. */
  history: HandoffView[] | undefined;
  /** Whether the last page came full, so older moves may be left to load. */
  olderHistory: boolean;
  /** The act under way ('move', 'push', 'commit'), while one is. */
  pending: string | undefined;
}

const NOTHING_YET: SessionMoves = {
  eligibility: undefined,
  readiness: undefined,
  blocked: undefined,
  dismissed: undefined,
  history: undefined,
  olderHistory: false,
  pending: undefined,
  asked: undefined,
  said: undefined,
};

interface HandoffsState {
  /** One record per session this page acted on or loaded moves of. */
  sessions: Record<string, SessionMoves | undefined>;
  loadEligibility(sessionId: string): Promise<void>;
  loadReadiness(sessionId: string): Promise<void>;
  /**
   * Starts a move of the session as it was at `drawnFor` (refused, saying what changed, once it moved
   * on); `choice`: into a fresh clone on the target, with another agent than the default one.
   */
  startMove(sessionId: string, targetDeviceId: string, targetName: string, drawnFor: Stamp, choice?: MoveChoice): Promise<MoveOutcome>;
  /**
   * Runs the blocked move `shown` again: it starts when nothing blocks it any more. Off the owner it
   * asks the owner again, which checks and starts it there.
   */
  checkAgain(sessionId: string, shown: BlockedPanel): Promise<MoveOutcome>;
  /** Off the owner: asks the owner to move the session here (refused at once when it is offline), as it was at `drawnFor`. */
  moveHere(sessionId: string, drawnFor: Stamp, choice?: { freshClone?: boolean }): Promise<ActionResult>;
  cancelMove(sessionId: string): Promise<ActionResult>;
  /** Continues an owned session here with another agent, from a summary. */
  switchAgent(sessionId: string, provider: ProviderId): Promise<ActionResult>;
  /** Runs the failed activation of a session that arrived here again. */
  retryActivation(sessionId: string): Promise<ActionResult>;
  /** Pushes one repository; `shown` is the blocked move on screen, if any, which the fresh evaluation updates. */
  push(sessionId: string, repo: string, shown?: BlockedMove): Promise<void>;
  commit(sessionId: string, repo: string, message: string, shown?: BlockedMove): Promise<boolean>;
  dismissBlocked(sessionId: string, shown: BlockedMove): void;
  /** Loads the newest page of the session's moves (HISTORY_PAGE of them). */
  loadHistory(sessionId: string): Promise<void>;
  /** Loads the page of moves before the oldest one loaded, after it. */
  loadOlderHistory(sessionId: string): Promise<void>;
  applyHandoff(handoff: HandoffView, thisDeviceId: string | null): void;
  /** Forgets the record of every session not in `sessionIds` (the device's list): those sessions went away. */
  keepSessions(sessionIds: readonly string[]): void;
}

/** The session as this page knows it now (its loaded detail, else its row in the list). */
function sessionNow(sessionId: string): SessionView | undefined {
  const sessions = useSessionsStore.getState();
  return sessions.details[sessionId] ?? sessions.sessions.find((s) => s.id === sessionId);
}

const selfId = () => useStatusStore.getState().status?.deviceId ?? null;

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
  /** Says `text` of the session as it is now, else as it was at `drawnFor` (it goes once the session moves on). */
  const say = (sessionId: string, drawnFor: Stamp, text: string, ownerOffline = false) => {
    const session = sessionNow(sessionId);
    update(sessionId, () => ({ said: { stamp: session ? stampOf(session) : drawnFor, text, ownerOffline } }));
  };

  /** Why an act drawn at `drawnFor` must not run (the session moved on; said on the page), or null. */
  function movedOn(sessionId: string, drawnFor: Stamp): string | null {
    const session = sessionNow(sessionId);
    const why = session ? movedOnSince(drawnFor, session, selfId()) : null;
    if (why) say(sessionId, drawnFor, why);
    return why;
  }

  /** Runs one remediation; the fresh evaluation it returns replaces this device's readiness and the blocked move's report. */
  async function remediate(
    sessionId: string,
    label: string,
    shown: BlockedMove | undefined,
    run: () => Promise<{ result: ActionResult; report: ReadinessReport }>,
  ): Promise<boolean> {
    if (shown && movedOn(sessionId, shown.stamp)) return false;
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
    startMove: async (sessionId, targetDeviceId, targetName, drawnFor, { freshClone = false, provider, carry } = {}) => {
      const why = movedOn(sessionId, drawnFor);
      if (why) return { kind: 'refused', message: why };
      setPending(sessionId, 'move');
      try {
        const choice = {
          ...(freshClone ? { freshClone } : {}),
          ...(provider ? { provider } : {}),
          ...(carry !== undefined ? { carry } : {}),
        };
        const result = await api.startMove({ sessionId, targetDeviceId, ...choice, generation: drawnFor.generation });
        if (result.ok) {
          setBlocked(sessionId, undefined);
          return { kind: 'started' };
        }
        if ('report' in result) {
          const blocked = { stamp: drawnFor, targetDeviceId, targetName, report: result.report, actionError: null };
          setBlocked(sessionId, {
            ...blocked,
            ...(provider ? { provider } : {}),
            ...(carry !== undefined ? { carry } : {}),
            askedBy: null,
            handoffId: null,
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
    moveHere: async (sessionId, drawnFor, { freshClone = false } = {}) => {
      const why = movedOn(sessionId, drawnFor);
      if (why) return { ok: false, code: 'stale_generation', message: why };
      setPending(sessionId, 'move');
      try {
        const result = await api.moveHere({ sessionId, generation: drawnFor.generation, ...(freshClone ? { freshClone } : {}) });
        if (result.ok) update(sessionId, () => ({ asked: { stamp: drawnFor, at: Date.now() }, said: undefined }));
        else say(sessionId, drawnFor, result.message, result.code === 'source_offline');
        return result;
      } catch (error) {
        return { ok: false, code: 'failed', message: errorMessage(error) };
      } finally {
        setPending(sessionId, undefined);
      }
    },
    checkAgain: async (sessionId, shown) => {
      if (!shown.ownedHere) {
        const asked = await get().moveHere(sessionId, shown.stamp);
        return asked.ok ? { kind: 'started' } : { kind: 'refused', message: asked.message };
      }
      const choice = { provider: shown.provider, carry: shown.carry };
      const outcome = await get().startMove(sessionId, shown.targetDeviceId, shown.targetName, shown.stamp, choice);
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
      const history = await api.handoffHistory({ sessionId, limit: HISTORY_PAGE });
      update(sessionId, () => ({ history, olderHistory: history.length === HISTORY_PAGE }));
    },
    loadOlderHistory: async (sessionId) => {
      const before = get().sessions[sessionId]?.history?.at(-1)?.id;
      if (before === undefined) return;
      const older = await api.handoffHistory({ sessionId, before, limit: HISTORY_PAGE });
      update(sessionId, ({ history = [] }) => {
        const known = new Set(history.map((h) => h.id));
        return { history: [...history, ...older.filter((h) => !known.has(h.id))], olderHistory: older.length === HISTORY_PAGE };
      });
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
          stamp: { ownerDeviceId: handoff.sourceDeviceId, generation: handoff.generation, handoffId: null },
          targetDeviceId: handoff.targetDeviceId,
          targetName: handoff.targetName,
          report,
          actionError: null,
          askedBy: handoff.initiatorDeviceId === handoff.sourceDeviceId ? null : handoff.initiatorDeviceId,
          handoffId: handoff.id,
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

/** Every panel of the run view of `session` (model/run-panels.ts), from its state now and this page's memory, kept current; `now` for how long ago an ask was. */
export function useRunPanels(session: SessionView, now: number): RunPanels {
  const memory = useHandoffsStore((state) => state.sessions[session.id]) ?? NOTHING_YET;
  const selfId = useStatusStore((state) => state.status?.deviceId ?? null);
  const devices = useDevicesStore((state) => state.devices);
  const offline = (deviceId: string) => devices.some((d) => d.id === deviceId && d.presence === 'offline');
  return runPanels(session, memory, { selfId, offline, askAnsweredWithinMs: MOVE_HERE_MAX_AGE_MS }, now);
}

/** The blocked alert of `session` alone (model/run-panels.ts blockedPanel), kept current: the sidebar's colour of a session. */
export function useBlockedPanel(session: SessionView): BlockedPanel | null {
  const memory = useHandoffsStore((state) => state.sessions[session.id]) ?? NOTHING_YET;
  const selfId = useStatusStore((state) => state.status?.deviceId ?? null);
  return blockedPanel(session, memory, { selfId });
}
