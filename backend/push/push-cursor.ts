/**
 * Where an instance is in the shared push log, gap-aware. Log ids come from one sequence but
 * transactions commit in any order, so a row may become visible after a higher id was read. The
 * cursor keeps a floor (every id at or below it was read, or given up on), the ids read above it,
 * and the gaps between, each with when it was first seen: the next read asks for the gaps and
 * everything past the highest id, so a late commit is still delivered, once. A gap not filled within
 * `gapTtlMs` (a rolled-back insert leaves one for good) is given up.
 */
const MAX_GAP = 10_000;

export class PushCursor {
  private floorId: number;
  private readonly above = new Set<number>();
  private readonly gaps = new Map<number, number>();
  private highest: number;

  constructor(
    start: number,
    private readonly gapTtlMs = 10_000,
  ) {
    this.floorId = start;
    this.highest = start;
  }

  /** Every id at or below this was read or given up on. */
  get floor(): number {
    return this.floorId;
  }

  /** Whether `id` was taken (read, or at or below the floor). */
  has(id: number): boolean {
    return id <= this.floorId || this.above.has(id);
  }

  /** The read that catches up: ids past `after`, and the open gaps below it. */
  query(): { after: number; gaps: number[] } {
    return { after: this.highest, gaps: [...this.gaps.keys()] };
  }

  /** Records an id read; false when it was already read (deliver it only on true). */
  take(id: number, now: number): boolean {
    if (id <= this.floorId || this.above.has(id)) return false;
    this.gaps.delete(id);
    // A jump past MAX_GAP ids is not a race between commits: those ids are not waited for.
    if (id - this.highest <= MAX_GAP) for (let missing = this.highest + 1; missing < id; missing++) this.gaps.set(missing, now);
    this.above.add(id);
    this.highest = Math.max(this.highest, id);
    this.settle(now);
    return true;
  }

  /** Gives up gaps older than the TTL and raises the floor over every settled id. */
  settle(now: number): void {
    for (const [id, since] of this.gaps) if (now - since > this.gapTtlMs) this.gaps.delete(id);
    while (this.floorId < this.highest) {
      const next = this.floorId + 1;
      if (this.gaps.has(next)) break;
      this.above.delete(next);
      this.floorId = next;
    }
  }
}
