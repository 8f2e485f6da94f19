/** How a device runs its part of handoffs: the bounds on every wait, where repositories go, and the test hooks. */

export interface HandoffConfig {
  /** The target must reach target-prepared within this long, or the source cancels (`target_timeout`). */
  prepareTimeoutMs: number;
  /** The target must claim the checkpoint within this long, or the source cancels (`target_timeout`). */
  claimTimeoutMs: number;
  /** How long the source waits for a running provider turn before interrupting it. */
  turnWaitMs: number;
  /** Where the target finds or clones repositories. */
  workspaceRoot: string;
  /**
   * Tests only (`BATON_TEST_HOLD_DIR`): while a file named for a step (`prepare`, `quiesce`,
   * `checkpoint`, `claim`, `take-over`, `activate`: test-hold.ts) exists in this folder, the device
   * holds before that step; the test releases it by removing the file. Null (the default) holds nothing.
   */
  testHoldDir?: string | null;
  /**
   * Tests only (`BATON_TEST_TURN_LOG`): every provider turn's start and end is appended to this file
   * as one JSON line with the generation the device held (runtime/turn-log.ts), so a test can tell
   * that no turn ran on a device that did not own the session. Null (the default) logs nothing.
   */
  testTurnLog?: string | null;
}
