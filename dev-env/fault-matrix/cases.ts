/**
 * The fault matrix as data: who is hit (the backend, the source or the target of a move), how
 * (SIGKILL then restart; SIGSTOP beyond the move's deadlines then SIGCONT; the network between that
 * device and the backend cut, then restored; or made slow or lossy while the move goes on: 1.5 s
 * added each way, or 30 % of its segments lost), in which of the seven states the move is held when it
 * happens, and how the session stood when the move began: its first turn still running (the source
 * quiesces and interrupts it, each state committed alone but the claim, which enters
 * target-activating in its commit) or idle with its speculative checkpoint sealed before the target
 * prepared (the fast path: quiescing and relinquish in one commit, the checkpoint opened before the
 * provider resumes). `npm run test:faults` runs every case, `npm test` the smoke cases.
 */
import { FORWARD_STATES } from '../../shared/handoff-states.ts';
import type { GateName } from '../step-holds.ts';
import type { LinkConditions } from '../tcp-relay.ts';

export type ForwardState = (typeof FORWARD_STATES)[number];
export type Party = 'backend' | 'source' | 'target';
export type Fault = 'kill' | 'pause' | 'cut' | 'delay' | 'loss';

/** The faults that leave the link up but slow or lossy (slow-link.ts): the move goes on through them. */
export const LINK_FAULTS: Readonly<Record<'delay' | 'loss', LinkConditions>> = {
  /** 1.5 s added each way: a round trip takes 3 s longer, a new connection's handshake as much again. */
  delay: { delayMs: 1500 },
  /** 30 % of segments lost (each then 200 ms late, doubling while its retransmissions are lost too), a lost SYN 1 s. */
  loss: { delayMs: 0, loss: 0.3 },
};

/** Whether `fault` slows the link rather than stopping a party or cutting it. */
export const isLinkFault = (fault: Fault): fault is keyof typeof LINK_FAULTS => fault === 'delay' || fault === 'loss';
/** How the session stood when the move began (see the file header). */
export type Start = 'turn-running' | 'idle';

export interface FaultCase {
  party: Party;
  fault: Fault;
  state: ForwardState;
  start: Start;
}

/** A device's gate holding the move at a point (dev-env/step-holds.ts). */
export interface GateHold {
  device: 'source' | 'target';
  point: GateName;
}

/**
 * Where a move is held in a state: `hold` is the point the case waits for; `also` holds the other
 * device meanwhile, so it cannot move the handoff past that state before the fault. A state entered
 * in one commit with the next is held at that commit, before it is sent or once it is durable.
 */
export interface StateHold {
  hold: GateHold;
  also?: GateHold;
}

/** Where each start holds the move in each of its states; `completed` needs no hold. */
export const HOLDS: Record<Start, Partial<Record<ForwardState, StateHold | null>>> = {
  'turn-running': {
    requested: { hold: { device: 'target', point: 'target-step-at-requested' } },
    'target-prepared': { hold: { device: 'source', point: 'source-step-at-target-prepared' } },
    'source-quiescing': { hold: { device: 'source', point: 'source-step-at-source-quiescing' } },
    'source-relinquished-and-checkpointed': { hold: { device: 'target', point: 'sending-ownership-transferred+target-activating' } },
    'ownership-transferred': { hold: { device: 'target', point: 'committed-ownership-transferred+target-activating' } },
    'target-activating': { hold: { device: 'target', point: 'target-step-at-target-activating' } },
    completed: null,
  },
  // The target is held before its prepare until the source has sealed its speculative checkpoint.
  idle: {
    requested: { hold: { device: 'target', point: 'target-step-at-requested' } },
    'target-prepared': { hold: { device: 'source', point: 'sending-source-quiescing+source-relinquished-and-checkpointed' } },
    'source-quiescing': {
      hold: { device: 'source', point: 'committed-source-quiescing+source-relinquished-and-checkpointed' },
      also: { device: 'target', point: 'target-step-at-source-relinquished-and-checkpointed' },
    },
    'target-activating': { hold: { device: 'target', point: 'checkpoint-opened' } },
  },
};

/** The bounds the matrix runs with: deadlines short enough that a pause or a cut outlasts them. */
export const FAULT_TIMING = {
  /** The source cancels when the target has not prepared, or not claimed the checkpoint, within this. */
  deadlineMs: 6000,
  /** How long the source waits for a running turn before interrupting it. */
  turnWaitMs: 1500,
  /**
   * One demo-agent turn on the source when a turn is running: longer than any case, so the session's
   * first turn is still running through the fault until the source quiesces and interrupts it.
   */
  sourceTurnMs: 120_000,
  /** One demo-agent turn on the source when the session is idle: over before the move begins. */
  idleTurnMs: 200,
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
  ['source', 'delay'],
  ['target', 'delay'],
  ['source', 'loss'],
  ['target', 'loss'],
];

/** The states each start is held in: every state with a turn running; with the fast path, those it changes. */
const STATES_OF: Record<Start, readonly ForwardState[]> = {
  'turn-running': FORWARD_STATES,
  idle: FORWARD_STATES.filter((state) => HOLDS['idle'][state] !== undefined),
};

/**
 * Every case: each party killed and paused, and each device cut off, slowed and made lossy, at each
 * of the seven states with a turn running (84), then at the four states the fast path changes (48).
 */
export const FAULT_MATRIX: readonly FaultCase[] = (['turn-running', 'idle'] as const).flatMap((start) =>
  FAULTS.flatMap(([party, fault]) => STATES_OF[start].map((state) => ({ party, fault, state, start }))),
);

/** One case per role (backend, source, target, network cut, slow network) for `npm test`. */
export const SMOKE_CASES: readonly FaultCase[] = [
  { party: 'backend', fault: 'kill', state: 'source-relinquished-and-checkpointed', start: 'turn-running' },
  { party: 'source', fault: 'pause', state: 'source-quiescing', start: 'turn-running' },
  { party: 'target', fault: 'kill', state: 'ownership-transferred', start: 'turn-running' },
  { party: 'target', fault: 'cut', state: 'target-activating', start: 'turn-running' },
  { party: 'source', fault: 'delay', state: 'target-prepared', start: 'idle' },
];

/** "kill source at source-quiescing", "cut target at requested, session idle". */
export function caseName(c: FaultCase): string {
  return `${c.fault} ${c.party} at ${c.state}${c.start === 'idle' ? ', session idle' : ''}`;
}

/** The cases named by `BATON_FAULTS`: `all` (the matrix), a comma list of fault/party/state/start words, or the smoke cases. */
export function selectCases(spec: string | undefined): readonly FaultCase[] {
  if (!spec) return SMOKE_CASES;
  if (spec === 'all') return FAULT_MATRIX;
  const words = spec.split(',').map((w) => w.trim());
  return FAULT_MATRIX.filter((c) => words.every((w) => c.party === w || c.fault === w || c.state === w || c.start === w));
}
