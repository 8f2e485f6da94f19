/** How a device runs its part of handoffs: the bounds on every wait, where repositories go, and the test hold. */

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
   * Tests only (`BATON_TEST_HOLD_DIR`): while a file named for a target step (`prepare`,
   * `activate`) exists in this folder, the target holds before that step; the test releases it by
   * removing the file. Null (the default) holds nothing.
   */
  testHoldDir?: string | null;
}
