/**
 * The test hold (HandoffConfig.testHoldDir): a test holds the target before one of its steps by
 * creating a file named for the step, and releases it by removing the file. Without a hold folder
 * (every real device) this returns at once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Before the target's prepare step; after its prepare work (fetched), before it says target-prepared; before activation. */
export type HeldStep = 'prepare' | 'prepared' | 'activate';

/** How often a held step looks for its release. */
const POLL_MS = 50;

/** Whether a test holds `step` now (never without a hold folder). */
export function testHolds(dir: string | null | undefined, step: HeldStep): boolean {
  return Boolean(dir) && existsSync(join(dir!, step));
}

/** Resolves once `dir/step` does not exist (at once when `dir` is null or absent): true when it held. */
export async function releasedFromTestHold(dir: string | null | undefined, step: HeldStep): Promise<boolean> {
  if (!dir) return false;
  let held = false;
  while (testHolds(dir, step)) {
    held = true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return held;
}
