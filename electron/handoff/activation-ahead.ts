/**
 * The target's activation work begun ahead of its state. The checkpoint body is downloaded as soon as
 * the record names it (source-relinquished-and-checkpointed), while the target claims the session: a
 * read of the content-addressed store changes nothing. Once the session is the target's
 * (ownership-transferred), the body is opened — digest, unseal, pin, drift (activation.ts
 * openCheckpoint) — while target-activating is recorded. The provider is resumed only in the
 * target-activating step, which takes what was begun here once; a test hold of activation holds all of it.
 */
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { Result } from '../../shared/errors.ts';
import type { BackendPort } from '../runtime/ports.ts';
import { openCheckpoint, type ActivationDeps, type Opened } from './activation.ts';
import { testHolds } from './test-hold.ts';

/** The checkpoint opened, or why not; `thrown`: an unexpected error (a failed download), for the step to retry. */
export type Opening = Promise<{ opened: Result<Opened> } | { thrown: Error }>;

type OpenDeps = Omit<ActivationDeps, 'state' | 'sessions'>;

export class ActivationAhead {
  private readonly bodies = new Map<string, Promise<Result<Uint8Array>>>();
  private readonly openings = new Map<string, Opening>();

  constructor(
    private readonly deps: OpenDeps,
    private readonly testHoldDir: string | null | undefined,
  ) {}

  /** Starts downloading the checkpoint body of `handoff` (once). */
  download(handoff: Handoff): void {
    const digest = handoff.checkpoint?.digest;
    if (digest === undefined || this.bodies.has(handoff.id) || testHolds(this.testHoldDir, 'activate')) return;
    const body = this.deps.backend
      .getBlob(digest)
      .catch((error: Error) => ({ ok: false, code: 'network', message: error.message }) as const);
    this.bodies.set(handoff.id, body);
  }

  /** Starts opening the checkpoint of `handoff` (once), on the body downloaded ahead. Only once the session is this device's. */
  open(handoff: Handoff): void {
    if (this.openings.has(handoff.id) || testHolds(this.testHoldDir, 'activate')) return;
    this.download(handoff);
    const opening = openCheckpoint({ ...this.deps, backend: this.bodyOf(handoff) }, handoff).then(
      (opened) => ({ opened }),
      (error: Error) => ({ thrown: error }),
    );
    this.openings.set(handoff.id, opening);
  }

  /** What was begun of `handoff`'s activation, taken once: its opening, and the backend port that serves its body. */
  take(handoff: Handoff): { opening: Opening | undefined; backend: Pick<BackendPort, 'getBlob'> } {
    const opening = this.openings.get(handoff.id);
    this.openings.delete(handoff.id);
    return { opening, backend: this.bodyOf(handoff) };
  }

  /** Forgets what was begun of an ended handoff. */
  forget(handoffId: string): void {
    this.bodies.delete(handoffId);
    this.openings.delete(handoffId);
  }

  /** A port whose getBlob serves the body downloaded ahead (once), else downloads it now. */
  private bodyOf(handoff: Handoff): Pick<BackendPort, 'getBlob'> {
    return {
      getBlob: async (digest) => {
        const ahead = this.bodies.get(handoff.id);
        this.bodies.delete(handoff.id);
        const body = ahead && handoff.checkpoint?.digest === digest ? await ahead : null;
        return body?.ok ? body : this.deps.backend.getBlob(digest);
      },
    };
  }
}
