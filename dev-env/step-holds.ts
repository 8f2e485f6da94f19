/**
 * The file-based step gate (electron/handoff/test-seam.ts) of a harness device: a test holds the
 * device at a point by creating a file named for the point in the device's gate folder, and
 * releases it by removing the file. While it holds, the device writes `<point>.holding` (the
 * handoff's id) beside it, so a test knows the move has got there; and every point the device
 * passes, held or not, is appended to `passed` (`<handoff id> <point>` a line).
 *
 * | point (file name)                                              | device | the move waits                                                       |
 * | -------------------------------------------------------------- | ------ | -------------------------------------------------------------------- |
 * | `target-step-at-requested`                                     | target | in `requested`, before the prepare                                   |
 * | `sending-target-prepared`                                      | target | in `requested`, prepared (fetched), before saying so                 |
 * | `source-step-at-target-prepared`                               | source | in `target-prepared`, input not yet refused                          |
 * | `sending-source-quiescing+source-relinquished-and-checkpointed` | source | in `target-prepared`, checkpoint uploaded, quiescing and relinquish about to be sent in one commit |
 * | `committed-source-quiescing+source-relinquished-and-checkpointed` | source | that commit durable, the source not yet told                       |
 * | `source-step-at-source-quiescing`                              | source | in `source-quiescing` (the checkpoint begun as input was refused)    |
 * | `sending-ownership-transferred+target-activating`              | target | in `source-relinquished-and-checkpointed`, receipt begun, claim unsent |
 * | `committed-ownership-transferred+target-activating`            | target | the claim durable (both states), the target not yet told            |
 * | `target-step-at-target-activating`                             | target | in `target-activating`, before the take-over                         |
 * | `checkpoint-opened`                                            | target | in `target-activating`, checkpoint opened, provider not resumed       |
 * | `speculative-checkpoint-sealed`                                | source | (not the move) the speculative checkpoint sealed, not yet used        |
 *
 * Any other point is named the same way (`gateName`). Without a file nothing waits.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatePoint, StepGate } from '../electron/handoff/test-seam.ts';
import type { HandoffState } from '../shared/handoff-states.ts';

/** How often a held point looks for its release. */
const POLL_MS = 50;

/** The file that lists every point passed. */
const PASSED = 'passed';

/** A gate point's name (see the table above). */
export type GateName =
  | `${'source' | 'target'}-step-at-${HandoffState}`
  | `${'sending' | 'committed'}-${HandoffState}${'' | `+${HandoffState}`}`
  | (GatePoint & { at: 'work' })['work'];

/** The name of a gate point: its hold file's name. */
export function gateName(point: GatePoint): GateName {
  if (point.at === 'step') return `${point.role}-step-at-${point.state}`;
  if (point.at === 'work') return point.work;
  return `${point.at}-${point.enters.join('+')}` as GateName;
}

/** A gate that waits at each point whose file exists in `dir`. */
export function fileGate(dir: string): StepGate {
  const held = async (hold: string, handoffId: string) => {
    writeFileSync(`${hold}.holding`, handoffId);
    while (existsSync(hold)) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    rmSync(`${hold}.holding`, { force: true });
  };
  return {
    before(point, handoff) {
      const name = gateName(point);
      appendFileSync(join(dir, PASSED), `${handoff.id} ${name}\n`);
      const hold = join(dir, name);
      return existsSync(hold) ? held(hold, handoff.id) : undefined;
    },
  };
}

/** A device started with a file gate (two-devices.ts). */
export interface Gated {
  gateDir: string;
}

/** Holds `device` at `point` (a gateName) until the returned release is called. */
export function holdAt(device: Pick<Gated, 'gateDir'>, point: GateName): () => void {
  const file = join(device.gateDir, point);
  writeFileSync(file, 'held by a test\n');
  return () => rmSync(file, { force: true });
}

/** Whether `device` holds `handoffId` at `point` now. */
export function isHolding(device: Pick<Gated, 'gateDir'>, point: GateName, handoffId: string): boolean {
  const marker = join(device.gateDir, `${point}.holding`);
  return existsSync(marker) && readFileSync(marker, 'utf8') === handoffId;
}

/** Whether `device` has passed `point` in `handoffId`. */
export function hasPassed(device: Pick<Gated, 'gateDir'>, point: GateName, handoffId: string): boolean {
  const file = join(device.gateDir, PASSED);
  return existsSync(file) && readFileSync(file, 'utf8').split('\n').includes(`${handoffId} ${point}`);
}

/** Releases every hold of `device` and forgets what it passed. */
export function clearHolds(device: Pick<Gated, 'gateDir'>): void {
  for (const file of readdirSync(device.gateDir)) rmSync(join(device.gateDir, file), { force: true });
}
