/**
 * Whether this device reaches its sync backend, from what its calls and its push stream see: any
 * answer from an address makes it reachable; a round in which every address failed without an
 * answer (no connection, a timeout, or a gateway's 502/503/504) makes it unreachable until an
 * address answers again (failover.ts). A refusal as revoked is kept too: a revoked device stays so. Listeners
 * hear only changes, so the UI is not redrawn on every call.
 */
import type { BackendReachabilityView } from '../../shared/device-api.ts';

export class ReachabilityTracker {
  private state: BackendReachabilityView = { state: 'unknown', current: null, tried: [], since: null, lastError: null };
  private readonly listeners = new Set<(view: BackendReachabilityView) => void>();
  /** The calls waiting for an answer now, each by when it was sent. */
  private readonly waiting = new Set<{ sentAt: number }>();
  /** When the backend first refused this device as revoked, else null. */
  private revoked: number | null = null;

  constructor(private readonly clock: () => number = Date.now) {}

  /** What is known now. */
  view(): BackendReachabilityView {
    return { ...this.state, tried: [...this.state.tried] };
  }

  /** `url` answered (with any status below 500). */
  reached(url: string): void {
    if (this.state.state === 'reachable' && this.state.current === url) return;
    const since = this.state.state === 'reachable' ? this.state.since : this.clock();
    this.set({ state: 'reachable', current: url, tried: [], since, lastError: null });
  }

  /** Every address in `tried` failed in one round; `lastError` says how, in words. */
  unreachable(tried: readonly string[], lastError: string): void {
    const same = this.state.state === 'unreachable' && this.state.tried.join(',') === tried.join(',');
    if (same) {
      this.state = { ...this.state, lastError };
      return;
    }
    const since = this.state.state === 'unreachable' ? this.state.since : this.clock();
    this.set({ state: 'unreachable', current: this.state.current, tried: [...tried], since, lastError });
  }

  /** The backend refused this device as revoked (`device_revoked`): it stays so, and listeners hear it once. */
  refusedAsRevoked(): void {
    if (this.revoked !== null) return;
    this.revoked = this.clock();
    this.set(this.state);
  }

  /** When the backend first refused this device as revoked, else null. */
  revokedAt(): number | null {
    return this.revoked;
  }

  /** Notes a call sent now; the function returned notes its end (answered, refused or given up). */
  sent(): () => void {
    const call = { sentAt: this.clock() };
    this.waiting.add(call);
    return () => this.waiting.delete(call);
  }

  /**
   * How long the call waiting longest has waited for its answer, in ms (0 with none waiting). A
   * backend that is up answers in milliseconds; one that accepts connections but does not run
   * (stopped, swapping, wedged) leaves calls waiting while it still looks reachable.
   */
  longestWait(): number {
    let oldest = Infinity;
    for (const call of this.waiting) oldest = Math.min(oldest, call.sentAt);
    return oldest === Infinity ? 0 : this.clock() - oldest;
  }

  /** Calls `listener` on every change; returns its unsubscribe. */
  subscribe(listener: (view: BackendReachabilityView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(next: BackendReachabilityView): void {
    this.state = next;
    const view = this.view();
    for (const listener of [...this.listeners]) listener(view);
  }
}
