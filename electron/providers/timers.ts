/** Injectable timers, so adapters with timed behaviour can be driven by a test clock. */

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real timers of this process. */
export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Timers whose pending callbacks can all be cancelled at once (one turn's schedule). */
export class TimerGroup {
  private readonly handles = new Set<unknown>();

  constructor(private readonly timers: Timers) {}

  /** Runs `callback` after `ms` unless the group is cleared first. */
  after(ms: number, callback: () => void): void {
    const handle: unknown = this.timers.setTimeout(() => {
      this.handles.delete(handle);
      callback();
    }, ms);
    this.handles.add(handle);
  }

  /** Cancels every pending callback. */
  clear(): void {
    for (const handle of this.handles) this.timers.clearTimeout(handle);
    this.handles.clear();
  }
}
