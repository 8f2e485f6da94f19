/**
 * The owner's record of the Move here requests it acted on (move-here.ts), and the pace at which it
 * checks readiness for them. The record lives in the session's local record, so a request served
 * again to an owner restarted within the request's lifetime is still a replay. It stays bounded: a
 * request past its lifetime is refused for its age anyway, so its id is dropped then; and it never
 * holds more than MOVE_HERE_IDS_KEPT — a full record refuses new requests until old ones age out,
 * rather than forget one that could still be replayed. The pace is in memory: readiness runs git
 * processes, so for one session it runs at most once every MOVE_HERE_RECHECK_MS for Move here; a
 * request meanwhile waits for the next turn, and the requests that come while one waits join it.
 */
import type { LocalState } from '../local-state/local-state.ts';
import type { Clock } from '../ports/clock.ts';

/** The most Move here request ids one session's record keeps (the backend lets far fewer through in a lifetime). */
export const MOVE_HERE_IDS_KEPT = 1000;
/** The shortest time between two readiness checks one session runs for Move here requests. */
export const MOVE_HERE_RECHECK_MS = 5_000;

export interface MoveHereRecordDeps {
  state: Pick<LocalState, 'readSession' | 'updateSession'>;
  clock: Clock;
  /** How long a request may be acted on from the time it was asked. */
  maxAgeMs: number;
}

export class MoveHereRecord {
  /** When each session last checked readiness for a Move here, in this process. */
  private readonly checked = new Map<string, number>();
  /** The check each session runs once the pace allows (the latest request's). */
  private readonly waiting = new Map<string, () => Promise<void>>();

  constructor(private readonly deps: MoveHereRecordDeps) {}

  /** Why request `requestId` of `sessionId` may not be acted on: a replay, or a full record; null when it may. */
  refusal(sessionId: string, requestId: string): string | null {
    const seen = this.live(sessionId);
    if (seen.some((entry) => entry.id === requestId)) return 'it is a replay of a request already seen';
    if (seen.length >= MOVE_HERE_IDS_KEPT) return 'too many requests were made in the last minutes; ask again later';
    return null;
  }

  /** Records request `requestId`, asked at `at`, as acted on (durably, with the session's record); drops the ids past their lifetime. */
  remember(sessionId: string, requestId: string, at: number): void {
    const kept = [...this.live(sessionId), { id: requestId, at }];
    this.deps.state.updateSession(sessionId, (s) => {
      s.permissions.seenMoveHere = kept;
    });
  }

  /**
   * Runs `check` (readiness, then the move) for `sessionId` now when the pace allows; else once when it
   * next does — one waits at a time, a later request taking its place — so a person asking again just
   * after a check is answered a few seconds later, and a flood costs one check per interval.
   */
  pace(sessionId: string, check: () => Promise<void>): Promise<void> {
    const now = this.deps.clock();
    const last = this.checked.get(sessionId);
    const wait = last === undefined ? 0 : last + MOVE_HERE_RECHECK_MS - now;
    if (wait <= 0 || wait > MOVE_HERE_RECHECK_MS) {
      this.checked.set(sessionId, now);
      return check();
    }
    const waiting = this.waiting.has(sessionId);
    this.waiting.set(sessionId, check);
    if (waiting) return Promise.resolve();
    const timer = setTimeout(() => {
      const next = this.waiting.get(sessionId);
      this.waiting.delete(sessionId);
      this.checked.set(sessionId, this.deps.clock());
      void next?.();
    }, wait);
    timer.unref?.();
    return Promise.resolve();
  }

  /** The ids still within their lifetime (older ones are refused for their age anyway). */
  private live(sessionId: string): { id: string; at: number }[] {
    const now = this.deps.clock();
    const seen = this.deps.state.readSession(sessionId)?.permissions.seenMoveHere ?? [];
    return seen.filter((entry) => Math.abs(now - entry.at) <= this.deps.maxAgeMs);
  }
}
