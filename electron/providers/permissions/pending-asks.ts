/**
 * The permission requests an adapter has reported and not yet had answered: what each one needs to
 * write the CLI's answer back, by the adapter's id for it. Adding one reports `permission-request`;
 * taking one is how an answer claims it (once); dropping them reports `permission-cancelled`, so the
 * runtime never waits on an ask the CLI no longer makes.
 */
import type { PermissionRequest } from '../../../shared/permission-request.ts';
import type { SessionState } from '../session-state.ts';

export class PendingAsks<T> {
  private readonly pending = new Map<string, T>();

  constructor(private readonly state: SessionState) {}

  /** Records `request` (with what its answer needs) and reports it; one past the turn's cap is dropped (the turn is stopped). */
  add(request: PermissionRequest, native: T): void {
    if (!this.state.admitAsk()) return;
    this.pending.set(request.id, native);
    this.state.emit({ type: 'permission-request', request });
  }

  /** Claims pending request `id` for its answer: what add() kept, or undefined when it is not pending. */
  take(id: string): T | undefined {
    const native = this.pending.get(id);
    this.pending.delete(id);
    return native;
  }

  /** Drops request `id` (the CLI withdrew it) and reports it: what add() kept, or undefined when it was not pending. */
  cancel(id: string, reason: string): T | undefined {
    const native = this.take(id);
    if (native !== undefined) this.state.emit({ type: 'permission-cancelled', requestId: id, reason });
    return native;
  }

  /** Drops every pending request (the turn ended) and reports each; returns what add() kept of them. */
  cancelAll(reason: string): T[] {
    return [...this.pending.keys()].flatMap((id) => {
      const native = this.cancel(id, reason);
      return native === undefined ? [] : [native];
    });
  }

  get size(): number {
    return this.pending.size;
  }
}
