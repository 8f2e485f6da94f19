/**
 * Where an instance is in the shared push log, gap-aware. Log ids come from one sequence but
 * transactions commit in any order, so a row may become visible after a higher id was read (or
 * written by this instance). The cursor keeps a floor (every id at or below it was delivered, or
 * given up on), the messages taken above it, and the gaps between, each with when it was first
 * seen: the next read asks for the gaps and everything past the highest id, so a late commit is
 * still delivered, once. Messages are delivered in log order: one taken above a gap waits until the
 * gap is filled, or is given up after `gapTtlMs` (a rolled-back insert leaves one for good).
 */
const MAX_GAP = 10_000;

export class PushCursor<T> {
  private floorId: number;
  private readonly held = new Map<number, T>();
  private readonly gaps = new Map<number, number>();
  private highest: number;

  /** Starts at `start` (nothing at or below it is delivered); `deliver` is called once per id, in id order. */
  constructor(
    start: number,
    private readonly deliver: (id: number, value: T) => void,
    private readonly gapTtlMs = 10_000,
  ) {
    this.floorId = start;
    this.highest = start;
  }

  /** Every id at or below this was delivered or given up on (while one is delivered, the floor is that id). */
  get floor(): number {
    return this.floorId;
  }

  /** The read that catches up: ids past `after`, and the open gaps below it. */
  query(): { after: number; gaps: number[] } {
    return { after: this.highest, gaps: [...this.gaps.keys()] };
  }

  /**
   * Records id `id` and its message; false when it was already taken. It is delivered once every id
   * below it was delivered or given up on, and the messages it held back after it.
   */
  take(id: number, value: T, now: number): boolean {
    if (id <= this.floorId || this.held.has(id)) return false;
    this.gaps.delete(id);
    // A jump past MAX_GAP ids is not a race between commits: those ids are not waited for.
    if (id - this.highest <= MAX_GAP) for (let missing = this.highest + 1; missing < id; missing++) this.gaps.set(missing, now);
    this.held.set(id, value);
    this.highest = Math.max(this.highest, id);
    this.settle(now);
    return true;
  }

  /** Gives up gaps older than the TTL and raises the floor over every settled id, delivering each held message as it passes. */
  settle(now: number): void {
    for (const [id, since] of this.gaps) if (now - since > this.gapTtlMs) this.gaps.delete(id);
    while (this.floorId < this.highest) {
      const next = this.floorId + 1;
      if (this.gaps.has(next)) break;
      this.floorId = next;
      const value = this.held.get(next);
      if (value === undefined) continue;
      this.held.delete(next);
      this.deliver(next, value);
    }
  }
}
