/**
 * The one seam tests act on a device through, and it changes nothing: a shipped device runs with
 * neither part (OPEN_GATE, no turn observer), and a device built with them makes the same commits,
 * in the same order, begins the same work ahead of its state — a gate can only make it wait.
 *
 * - The step gate: the coordinator asks it before each of this device's steps, before it sends each
 *   transition, and once that transition's commit is known (its answer, or a push showing it) but
 *   before the device takes it in; the steps ask it at two points of the work they begin before its
 *   state is committed (the source's speculative checkpoint sealed, the target's checkpoint opened
 *   with its provider not yet resumed). A gate that waits holds the move there. The fault matrix
 *   (dev-env/fault-matrix/) holds a move in each of the seven states this way — a state entered in
 *   one commit with the next at that commit, before it is sent or once it is durable — and kills,
 *   pauses or cuts off a party while it is held.
 * - The turn observer (a session concern: runtime/sessions/turn-observer.ts): told of every provider
 *   turn that starts or ends on this device with the generation and owner the device knew then, so a
 *   test can tell that no turn ran on a device that did not own the session.
 *
 * The file-based gate and the file of turns live in dev-env/ (step-holds.ts, turn-records.ts) and
 * are handed in by the harness's own device entry (dev-env/gated-device.ts); no shipped command
 * builds a device with them.
 */
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { HandoffState } from '../../shared/handoff-states.ts';

/** Where a device asks the gate. */
export type GatePoint =
  /** Before the coordinator runs this device's step for `state`. */
  | { at: 'step'; role: 'source' | 'target'; state: HandoffState }
  /**
   * A transition about to be sent (`sending`), or known committed — its answer, or a push showing it —
   * before the step that sent it goes on or the answer is taken in (`committed`): the states it enters, in order.
   */
  | { at: 'sending' | 'committed'; enters: readonly HandoffState[] }
  /** Inside work begun before its state is committed. */
  | { at: 'work'; work: 'speculative-checkpoint-sealed' | 'checkpoint-opened' };

/**
 * What the coordinator and the steps ask before going on past a point. Asked where nothing waits,
 * it answers undefined, and the device goes on in the same turn of the event loop as without a gate.
 */
export interface StepGate {
  /** Undefined when the device may go on past `point` in `handoff` at once; else resolves once it may. */
  before(point: GatePoint, handoff: Handoff): Promise<void> | undefined;
}

/** The gate of every shipped device: it never waits. */
export const OPEN_GATE: StepGate = { before: () => undefined };
