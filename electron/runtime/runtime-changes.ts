/**
 * The runtime's one channel for "something changed" (ports/changes.ts). The session service, the
 * move blocks, the coordinator and the progress sink tell it; compose.ts subscribes each part that
 * follows, once. A change reaches its listeners as a direct call would: at once, in the order they
 * subscribed, before the part that told it goes on, and a listener's throw is the teller's.
 */
import type { ChangeKind, ChangeListener, Changes, ChangeSink } from '../ports/changes.ts';

export class RuntimeChanges implements ChangeSink {
  private listeners: readonly ChangeListener[] = [];

  /** Tells `listener` each change it has a method for from now on, after the listeners subscribed before it. */
  subscribe(listener: ChangeListener): void {
    this.listeners = [...this.listeners, listener];
  }

  emit<K extends ChangeKind>(kind: K, change: Changes[K]): void {
    for (const listener of this.listeners) listener[kind]?.(change);
  }
}
