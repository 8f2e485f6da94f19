/**
 * The fault matrix as data: who is hit (the backend, the source or the target of a move), how
 * (SIGKILL then restart; SIGSTOP beyond the move's deadlines then SIGCONT; the network between that
 * device and the backend cut, then restored) and in which of the seven states the move is held
 * when it happens. `npm run test:faults` runs every case, `npm test` the smoke cases.
 */
import type { HeldStep } from '../../electron/handoff/test-hold.ts';
import { FORWARD_STATES } from '../../shared/handoff-states.ts';

export type ForwardState = (typeof FORWARD_STATES)[number];
export type Party = 'backend' | 'source' | 'target';
export type Fault = 'kill' | 'pause' | 'cut';

export interface FaultCase {
  party: Party;
  fault: Fault;
  state: ForwardState;
}

/** Which device holds a move in each state, before which step (test-hold.ts); `completed` needs no hold. */
export const HOLDS: Record<ForwardState, { device: 'source' | 'target'; step: HeldStep } | null> = {
  requested: { device: 'target', step: 'prepare' },
  'target-prepared': { device: 'source', step: 'quiesce' },
  'source-quiescing': { device: 'source', step: 'checkpoint' },
  'source-relinquished-and-checkpointed': { device: 'target', step: 'claim' },
  'ownership-transferred': { device: 'target', step: 'take-over' },
  'target-activating': { device: 'target', step: 'activate' },
  completed: null,
};

/** The bounds the matrix runs with: deadlines short enough that a pause or a cut outlasts them. */
export const FAULT_TIMING = {
  /** The source cancels when the target has not prepared, or not claimed the checkpoint, within this. */
  deadlineMs: 6000,
  /** How long the source waits for a running turn before interrupting it. */
  turnWaitMs: 1500,
  /**
   * One demo-agent turn on the source: longer than any case, so the session's first turn is still
   * running through the fault until the source quiesces and interrupts it.
   */
  sourceTurnMs: 120_000,
  /** SIGSTOP and cuts last this long: beyond the deadlines and the backend's 10 s header time. */
  outageMs: 11_000,
  /** A killed backend stays down this long before it is restarted (a killed device restarts at once). */
  backendDownMs: 1000,
  /** After the fault ends, the move must end and both devices agree within this. */
  settleMs: 90_000,
} as const;

const FAULTS: readonly [Party, Fault][] = [
  ['backend', 'kill'],
  ['backend', 'pause'],
  ['source', 'kill'],
  ['source', 'pause'],
  ['target', 'kill'],
  ['target', 'pause'],
  ['source', 'cut'],
  ['target', 'cut'],
];

/** Every case: each party killed and paused, and each device cut off, at each of the seven states (56). */
export const FAULT_MATRIX: readonly FaultCase[] = FAULTS.flatMap(([party, fault]) =>
  FORWARD_STATES.map((state) => ({ party, fault, state })),
);

/** One case per role (backend, source, target, network) for `npm test`. */
export const SMOKE_CASES: readonly FaultCase[] = [
  { party: 'backend', fault: 'kill', state: 'source-relinquished-and-checkpointed' },
  { party: 'source', fault: 'pause', state: 'source-quiescing' },
  { party: 'target', fault: 'kill', state: 'ownership-transferred' },
  { party: 'target', fault: 'cut', state: 'target-activating' },
];

/** "kill source at source-quiescing", "cut target at requested". */
export function caseName(c: FaultCase): string {
  return `${c.fault} ${c.party} at ${c.state}`;
}

/** The cases named by `BATON_FAULTS`: `all` (the matrix), a comma list of fault/party/state words, or the smoke cases. */
export function selectCases(spec: string | undefined): readonly FaultCase[] {
  if (!spec) return SMOKE_CASES;
  if (spec === 'all') return FAULT_MATRIX;
  const words = spec.split(',').map((w) => w.trim());
  return FAULT_MATRIX.filter((c) => words.every((w) => c.party === w || c.fault === w || c.state === w));
}
