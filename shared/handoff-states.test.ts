import { describe, expect, it } from 'vitest';
import {
  CANCELLABLE_STATES,
  FORWARD_STATES,
  HANDOFF_STATES,
  TRANSITIONS,
  isCancellable,
  mayTransition,
  mayTransitionThrough,
  reachedAt,
  stepIndex,
  type HandoffRole,
  type HandoffState,
} from './handoff-states.ts';

const roles: HandoffRole[] = ['source', 'target', 'user', 'backend'];

/** The allowed (from, to, role) triples written out by hand from the design, independent of the table. */
const expected = new Set<string>([
  'requested>target-prepared>target',
  'target-prepared>source-quiescing>source',
  'source-quiescing>source-relinquished-and-checkpointed>source',
  'source-relinquished-and-checkpointed>ownership-transferred>target',
  'ownership-transferred>target-activating>target',
  'target-activating>completed>target',
  ...['requested', 'target-prepared', 'source-quiescing', 'source-relinquished-and-checkpointed'].flatMap((from) =>
    roles.map((role) => `${from}>cancelled>${role}`),
  ),
  'ownership-transferred>cancelled>target',
  'target-activating>cancelled>target',
]);

describe('the handoff state machine table', () => {
  it('has the seven forward states in order and then cancelled', () => {
    expect(HANDOFF_STATES).toEqual([...FORWARD_STATES, 'cancelled']);
    expect(FORWARD_STATES).toHaveLength(7);
  });

  it('accepts every allowed transition and refuses every other (from, to, role)', () => {
    for (const from of HANDOFF_STATES) {
      for (const to of HANDOFF_STATES) {
        for (const role of roles) {
          expect(mayTransition(from, to, role), `${from} → ${to} by ${role}`).toBe(expected.has(`${from}>${to}>${role}`));
        }
      }
    }
  });

  it('passes through only states entered with nothing but themselves, by a caller allowed both steps', () => {
    expect(mayTransitionThrough('source-relinquished-and-checkpointed', 'ownership-transferred', 'target-activating', 'target')).toBe(true);
    expect(mayTransitionThrough('source-relinquished-and-checkpointed', 'ownership-transferred', 'target-activating', 'source')).toBe(
      false,
    );
    // Entered with a checkpoint, a resume path or a reason: never passed through.
    expect(mayTransitionThrough('source-quiescing', 'source-relinquished-and-checkpointed', 'cancelled', 'source')).toBe(false);
    expect(mayTransitionThrough('ownership-transferred', 'target-activating', 'completed', 'target')).toBe(true);
    expect(mayTransitionThrough('target-activating', 'completed', 'cancelled', 'target')).toBe(false);
    // Each step is checked for the caller: the target prepares, but only the source quiesces.
    expect(mayTransitionThrough('requested', 'target-prepared', 'source-quiescing', 'target')).toBe(false);
  });

  it('lets nothing leave a terminal state', () => {
    for (const rule of TRANSITIONS) expect(['completed', 'cancelled']).not.toContain(rule.from);
  });

  it('is cancellable only before ownership transfers', () => {
    const cancellable = HANDOFF_STATES.filter((s: HandoffState) => isCancellable(s));
    expect(cancellable).toEqual(CANCELLABLE_STATES);
    expect(isCancellable('ownership-transferred')).toBe(false);
    expect(mayTransition('ownership-transferred', 'cancelled', 'user')).toBe(false);
    expect(mayTransition('ownership-transferred', 'cancelled', 'source')).toBe(false);
  });

  it('places each forward state on the stepper and cancelled off it', () => {
    expect(FORWARD_STATES.map(stepIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(stepIndex('cancelled')).toBe(-1);
  });

  it('tells when a history reached a state, and nothing for one it never reached', () => {
    const history = [
      { state: 'requested', at: 10 },
      { state: 'target-prepared', at: 25 },
      { state: 'cancelled', at: 40 },
    ] as const;
    expect(reachedAt(history, 'target-prepared')).toBe(25);
    expect(reachedAt(history, 'ownership-transferred')).toBeUndefined();
  });
});
