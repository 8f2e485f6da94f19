/** How a device runs its part of handoffs: the bounds on every wait, and where repositories go. */

export interface HandoffConfig {
  /** The target must reach target-prepared within this long, or the source cancels (`target_timeout`). */
  prepareTimeoutMs: number;
  /** The target must claim the checkpoint within this long, or the source cancels (`target_timeout`). */
  claimTimeoutMs: number;
  /** How long the source waits for a running provider turn before interrupting it. */
  turnWaitMs: number;
  /**
   * The largest sealed checkpoint the source sends in its relinquish rather than uploading it first
   * (unset: INLINE_CHECKPOINT_MAX_BYTES, the most the backend takes; 0: every checkpoint is uploaded first).
   */
  inlineCheckpointBytes?: number;
  /** Where the target finds or clones repositories. */
  workspaceRoot: string;
}
