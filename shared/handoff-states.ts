/**
 * The handoff state machine as data: states, allowed transitions and who makes each
 * (electron/handoff/README.md maps each state to the file that performs it).
 * The backend, the devices and the UI stepper all read this one table.
 */

/** The seven forward states, in order, then the one terminal failure state. */
export const FORWARD_STATES = [
  'requested',
  'target-prepared',
  'source-quiescing',
  'source-relinquished-and-checkpointed',
  'ownership-transferred',
  'target-activating',
  'completed',
] as const;

export const HANDOFF_STATES = [...FORWARD_STATES, 'cancelled'] as const;

export type HandoffState = (typeof HANDOFF_STATES)[number];

/**
 * Who makes a transition. The backend derives the role of a calling device from the handoff:
 * its source device is `source`, its target is `target`, any other enrolled device of the
 * account is `user`. `backend` is the service itself (deadline expiry).
 */
export type HandoffRole = 'source' | 'target' | 'user' | 'backend';

export interface TransitionRule {
  readonly from: HandoffState;
  readonly to: HandoffState;
  readonly by: readonly HandoffRole[];
  /** What the device has done before it asks for this compare-and-set. */
  readonly meaning: string;
}

/** States from which a handoff may still be cancelled by anyone: everything before the transfer. */
export const CANCELLABLE_STATES: readonly HandoffState[] = [
  'requested',
  'target-prepared',
  'source-quiescing',
  'source-relinquished-and-checkpointed',
];

/** States that end a handoff. */
export const TERMINAL_STATES: readonly HandoffState[] = ['completed', 'cancelled'];

const anyone: readonly HandoffRole[] = ['source', 'target', 'user', 'backend'];

/** Every allowed transition. Any pair not listed here is illegal. */
export const TRANSITIONS: readonly TransitionRule[] = [
  {
    from: 'requested',
    to: 'target-prepared',
    by: ['target'],
    meaning: 'target can open the workspace, has the provider and key version, fetched the branch',
  },
  {
    from: 'target-prepared',
    to: 'source-quiescing',
    by: ['source'],
    meaning: 'source durably rejects input and waits for the provider turn to end',
  },
  {
    from: 'source-quiescing',
    to: 'source-relinquished-and-checkpointed',
    by: ['source'],
    meaning: 'readiness re-checked, checkpoint built, sealed and uploaded',
  },
  {
    from: 'source-relinquished-and-checkpointed',
    to: 'ownership-transferred',
    by: ['target'],
    meaning: 'target claims; the backend increments the generation and sets the owner in one transaction',
  },
  {
    from: 'ownership-transferred',
    to: 'target-activating',
    by: ['target'],
    meaning: 'target is about to fetch, verify, unseal, pin and resume',
  },
  { from: 'target-activating', to: 'completed', by: ['target'], meaning: 'provider resumed; resume path and drift report recorded' },
  ...CANCELLABLE_STATES.map((from) => ({
    from,
    to: 'cancelled' as const,
    by: anyone,
    meaning: 'cancelled before the transfer; the source keeps the session',
  })),
  // After the transfer only the target may end the handoff, when activation fails; it keeps ownership.
  {
    from: 'ownership-transferred',
    to: 'cancelled',
    by: ['target'],
    meaning: 'activation failed after the transfer; the target keeps ownership and needs attention',
  },
  {
    from: 'target-activating',
    to: 'cancelled',
    by: ['target'],
    meaning: 'activation failed after the transfer; the target keeps ownership and needs attention',
  },
];

/** The rule for `from → to`, or undefined when the pair is illegal. */
export function findTransition(from: HandoffState, to: HandoffState): TransitionRule | undefined {
  return TRANSITIONS.find((rule) => rule.from === from && rule.to === to);
}

/** Whether `role` may move a handoff from `from` to `to`. */
export function mayTransition(from: HandoffState, to: HandoffState, role: HandoffRole): boolean {
  return findTransition(from, to)?.by.includes(role) ?? false;
}

/**
 * States a transition may pass through on its way to a further state in the same commit (the
 * request's `continueTo`): those entered with nothing but the state itself — no checkpoint, reason or
 * resume path — and not terminal. The target claims with `continueTo: 'target-activating'`, since it
 * does nothing between the two but begin activating.
 */
export const PASSABLE_STATES: readonly HandoffState[] = [
  'target-prepared',
  'source-quiescing',
  'ownership-transferred',
  'target-activating',
];

/** Whether `role` may move a handoff from `from` through `through` to `to` in one commit. */
export function mayTransitionThrough(from: HandoffState, through: HandoffState, to: HandoffState, role: HandoffRole): boolean {
  return PASSABLE_STATES.includes(through) && mayTransition(from, through, role) && mayTransition(through, to, role);
}

export function isTerminal(state: HandoffState): boolean {
  return TERMINAL_STATES.includes(state);
}

export function isCancellable(state: HandoffState): boolean {
  return CANCELLABLE_STATES.includes(state);
}

/** When a handoff's history reached `state` (the backend's commit time), or undefined if it never did. */
export function reachedAt(history: readonly { state: HandoffState; at: number }[], state: HandoffState): number | undefined {
  return history.find((entry) => entry.state === state)?.at;
}

/** The position of a forward state in the stepper (0–6), or -1 for `cancelled`. */
export function stepIndex(state: HandoffState): number {
  return (FORWARD_STATES as readonly HandoffState[]).indexOf(state);
}
