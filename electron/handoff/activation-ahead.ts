/**
 * The target's activation work begun ahead of its state: once the session is the target's
 * (ownership-transferred), the checkpoint is opened — downloaded, its digest verified, unsealed, the
 * workspace pinned, drift read (activation.ts openCheckpoint) — while target-activating is recorded.
 * The provider is resumed only in the target-activating step, which takes what was begun here once.
 * Nothing is begun while a test holds activation (test-hold.ts).
 */
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { Result } from '../../shared/errors.ts';
import { openCheckpoint, type ActivationDeps, type Opened } from './activation.ts';
import { testHolds } from './test-hold.ts';

/** The checkpoint opened, or why not; `thrown`: an unexpected error (a failed download), for the step to retry. */
export type Opening = Promise<{ opened: Result<Opened> } | { thrown: Error }>;

export class ActivationAhead {
  private readonly openings = new Map<string, Opening>();

  constructor(
    private readonly deps: Omit<ActivationDeps, 'sessions'>,
    private readonly testHoldDir: string | null | undefined,
  ) {}

  /** Starts opening the checkpoint of `handoff` (once). Only once the session is this device's. */
  open(handoff: Handoff): void {
    if (this.openings.has(handoff.id) || testHolds(this.testHoldDir, 'activate')) return;
    const opening = openCheckpoint(this.deps, handoff).then(
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

  /** Forgets what was begun of an ended handoff. */
  forget(handoffId: string): void {
    this.openings.delete(handoffId);
  }
}
