/**
 * The target's openings of checkpoints, begun before the step that uses them, in two parts:
 * - once the source has relinquished (source-relinquished-and-checkpointed), the checkpoint is
 *   received — downloaded, its digest verified, unsealed into a private staging folder
 *   (activation.ts receiveStaged) — while the target claims the session. Nothing outside staging is
 *   touched, and a move that ends before the claim has its staging removed.
 * - once the session is the target's (the claim committed), the checkpoint is opened: the workspace
 *   pinned and drift read (activation.ts openCheckpoint).
 * The activation the take-over begins takes what was begun here once, and resumes the provider
 * (target-steps.ts), never before the session is this device's.
 */
import { rm } from 'node:fs/promises';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { Result } from '../../shared/errors.ts';
import { openCheckpoint, receiveStaged, type ActivationDeps, type Opened } from './activation.ts';
import type { ReceiveCode, ReceivedCheckpoint } from './checkpoint-transfer.ts';

/** The checkpoint opened, or why not; `thrown`: an unexpected error (a failed download), for the step to retry. */
export type Opening = Promise<{ opened: Result<Opened> } | { thrown: Error }>;

/** The checkpoint received into staging, or why not; undefined when the download itself failed (the open downloads again). */
type Receiving = Promise<Result<ReceivedCheckpoint, ReceiveCode> | undefined>;

export class CheckpointOpenings {
  private readonly receipts = new Map<string, { receiving: Receiving; stagingDir: string }>();
  private readonly openings = new Map<string, Opening>();

  constructor(private readonly deps: Omit<ActivationDeps, 'sessions'>) {}

  /** Starts receiving the checkpoint of `handoff` into staging (once), as soon as the source has uploaded it. */
  receive(handoff: Handoff): void {
    if (this.receipts.has(handoff.id) || this.openings.has(handoff.id)) return;
    const receiving = receiveStaged(this.deps, handoff).catch((error: Error) => {
      this.deps.log(`handoff ${handoff.id}: early download failed, tried again at activation: ${error.message}`);
      return undefined;
    });
    this.receipts.set(handoff.id, { receiving, stagingDir: this.deps.state.exportsDir(handoff.sessionId, handoff.id) });
  }

  /** Starts opening the checkpoint of `handoff` (once), on what `receive` got of it. Only once the session is this device's. */
  open(handoff: Handoff): void {
    if (this.openings.has(handoff.id)) return;
    const receipt = this.receipts.get(handoff.id);
    this.receipts.delete(handoff.id);
    const received = receipt?.receiving.then((got) => got ?? receiveStaged(this.deps, handoff));
    const opening = openCheckpoint(this.deps, handoff, received).then(
      (opened) => ({ opened }),
      (error: Error) => ({ thrown: error }),
    );
    this.openings.set(handoff.id, opening);
  }

  /** What was begun of `handoff`'s activation, taken once. */
  take(handoffId: string): Opening | undefined {
    const opening = this.openings.get(handoffId);
    this.openings.delete(handoffId);
    return opening;
  }

  /**
   * Forgets what was begun of an ended handoff. A checkpoint received but never opened (the move
   * ended before the session was this device's) leaves nothing behind: its staging is removed.
   */
  async forget(handoffId: string): Promise<void> {
    this.openings.delete(handoffId);
    const receipt = this.receipts.get(handoffId);
    if (!receipt) return;
    this.receipts.delete(handoffId);
    await receipt.receiving;
    await rm(receipt.stagingDir, { recursive: true, force: true });
  }
}
