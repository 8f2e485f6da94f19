/**
 * The test hold (HandoffConfig.testHoldDir): a test holds a device before one of its handoff steps
 * by creating a file named for the step in the device's hold folder, and releases it by removing
 * the file. Each step holds in the state the handoff is in while it waits, so a test (the fault
 * matrix) can put a move in any of the seven states and keep it there (`resume` lets a test see what
 * the target opened ahead before the provider is touched):
 *
 * | step         | device | the handoff waits in                    |
 * | ------------ | ------ | --------------------------------------- |
 * | `prepare`    | target | `requested`                             |
 * | `prepared`   | target | `requested` (its fetch done)            |
 * | `quiesce`    | source | `target-prepared`                       |
 * | `checkpoint` | source | `source-quiescing` (turn not settled)   |
 * | `claim`      | target | `source-relinquished-and-checkpointed`  |
 * | `take-over`  | target | `ownership-transferred` (claimed alone) |
 * | `activate`   | target | `target-activating`                     |
 * | `resume`     | target | `target-activating` (opened ahead)      |
 *
 * Work a step begins ahead of its state (checkpoint-openings.ts, the source's checkpoint) is not begun
 * while the step it belongs to is held. Without a hold folder (every real device) nothing holds and
 * nothing is re-read.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { HandoffDriver } from './coordinator.ts';

export const HELD_STEPS = ['prepare', 'prepared', 'quiesce', 'checkpoint', 'claim', 'take-over', 'activate', 'resume'] as const;
export type HeldStep = (typeof HELD_STEPS)[number];

/** How often a held step looks for its release. */
const POLL_MS = 50;

/** Whether a test holds `step` now (never without a hold folder). */
export function testHolds(dir: string | null | undefined, step: HeldStep): boolean {
  return Boolean(dir) && existsSync(join(dir!, step));
}

/** Resolves once `dir/step` does not exist (at once when `dir` is null or absent). */
export async function releasedFromTestHold(dir: string | null | undefined, step: HeldStep): Promise<void> {
  while (testHolds(dir, step)) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}

/**
 * Holds before `step` while a test asks; once released, re-reads the handoff and says whether it is
 * still in the state it was in (the step goes on) or moved meanwhile (the newer record drives the
 * next step). True at once when nothing holds.
 */
export async function stillDueAfterHold(
  dir: string | null | undefined,
  step: HeldStep,
  driver: Pick<HandoffDriver, 'refresh' | 'get'>,
  handoff: Handoff,
): Promise<boolean> {
  if (!testHolds(dir, step)) return true;
  await releasedFromTestHold(dir, step);
  await driver.refresh(handoff.id);
  return driver.get(handoff.id)?.state === handoff.state;
}
