/**
 * What changed on this device, told on one typed channel: the part that changes something tells it
 * here (a ChangeSink), and each part that follows changes (the views the UI gets, a session's
 * blocked move, a move's desktop notices) is one ChangeListener, subscribed where the runtime is
 * wired (runtime/compose.ts). The channel itself is runtime/runtime-changes.ts.
 */
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { HandoffProgressView } from '../../shared/device-api.ts';

/** Each kind of change, and what is told with it. */
export interface Changes {
  /** A session's view may have changed (its record, its state, its transcript). */
  sessionChanged: { sessionId: string };
  /** Only a session's transcript (from index `transcriptFrom` on) and its agent map changed. */
  sessionActivity: { sessionId: string; transcriptFrom: number };
  /** A handoff this device knows changed: a newer record of it. */
  handoffChanged: { handoff: Handoff };
  /** This device has just finished its part in an ended handoff (once per handoff, restarts included). */
  handoffEnded: { handoff: Handoff; role: 'source' | 'target' };
  /** How far a long step of a move got (fetch, clone, checkpoint transfer, import). */
  handoffProgress: HandoffProgressView;
}

export type ChangeKind = keyof Changes;

/** Where a part tells what it changed. */
export interface ChangeSink {
  /** Tells each listener with a method for `kind`, in the order they subscribed, before it returns. */
  emit<K extends ChangeKind>(kind: K, change: Changes[K]): void;
}

/** A part that follows changes: a method for each kind it reacts to, named for the kind. */
export type ChangeListener = { [K in ChangeKind]?: (change: Changes[K]) => void };
