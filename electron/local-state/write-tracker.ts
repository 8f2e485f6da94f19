/**
 * The writes a local-state folder runs behind (records, transcript logs): which are still queued
 * (the durable ones apart), which failed and why, and the barrier over them. A failed write is
 * queued again at the next barrier; while any still fails, the barrier rejects.
 */
export class WriteTracker {
  private readonly pending = new Set<Promise<void>>();
  private readonly pendingDurable = new Set<Promise<void>>();
  /** Ids whose last write failed, and why. */
  readonly failed = new Map<string, string>();

  /** `retry` queues a new write of an id whose write failed; `describe` names what could not be written. */
  constructor(
    private readonly retry: (id: string) => void,
    private readonly describe: (id: string) => string,
  ) {}

  /** Tracks a queued write (a promise that resolves once it is done, never rejects). */
  track(written: Promise<void>, durable: boolean): void {
    this.pending.add(written);
    if (durable) this.pendingDurable.add(written);
    void written.then(() => {
      this.pending.delete(written);
      this.pendingDurable.delete(written);
    });
  }

  /**
   * Resolves when every durable write queued before the call is done (with `all`, every write).
   * Failed writes are queued again first; while any still fails, rejects with the first one's reason.
   */
  async settled(all = false): Promise<void> {
    for (const id of [...this.failed.keys()]) this.retry(id);
    await Promise.all([...(all ? this.pending : this.pendingDurable)]);
    if (this.failed.size === 0) return;
    const [id, reason] = [...this.failed][0]!;
    const more = this.failed.size > 1 ? ` (and ${this.failed.size - 1} more)` : '';
    throw new Error(`could not write ${this.describe(id)}${more}: ${reason}`);
  }
}
