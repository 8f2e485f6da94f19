/**
 * Checkpoint retention's collector: in the background, every `intervalMs`, it deletes the blob records
 * no handoff holds (store/sqlite/retention.ts says which a handoff holds) and then removes the bodies no
 * record names, each in batches of `batchSize` with a turn of the event loop between, so no batch holds
 * a lock or the thread for long. Records go before bodies and every step is its own transaction: a
 * crash mid-pass leaves records whose bodies are all there, and queued digests the next pass finishes.
 * Each pass first prunes the posts of sessions' logs nothing needs any more (retention.ts), in batches too.
 * The first pass of a process also sweeps the bodies it finds with no record (an upload cut by a crash
 * between its body and its record). On PostgreSQL each batch takes the collection lock, so of several
 * instances one collects at a time and the others find it busy and wait for their next pass.
 */
import type { BlobStore } from '../blobs/blob-store.ts';
import type { RetentionSettings } from '../retention.ts';
import type { Store } from '../store/store.ts';

export interface CollectorDeps {
  store: Store;
  blobs: BlobStore;
  clock: () => number;
  /** Where a failed pass is noted, on one line. */
  log: (line: string) => void;
  /** The window posts are counted in (limits.ts): no post is pruned while it counts. */
  postWindowMs: number;
}

/** What one pass collected. */
export interface CollectionReport {
  /** Blob records deleted. */
  records: number;
  /** Digests whose bodies were settled: removed, or found recorded again. */
  bodies: number;
  /** Whether another instance was collecting, so this pass stopped early. */
  busy: boolean;
  /** Posts of sessions' logs pruned. */
  posts: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Collects unneeded checkpoint bodies, one pass at a time. */
export class Collector {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<CollectionReport> | undefined;
  private swept = false;

  constructor(
    private readonly deps: CollectorDeps,
    private readonly settings: RetentionSettings,
  ) {}

  /** Starts collecting every `intervalMs`. */
  start(): void {
    this.timer = setInterval(
      () => void this.collect().catch((error: Error) => this.deps.log(`backend: collection failed: ${error.message}`)),
      this.settings.intervalMs,
    );
    this.timer.unref();
  }

  /** Runs a whole pass now (or joins the one running) and says what it collected. */
  collect(): Promise<CollectionReport> {
    this.pass ??= this.run().finally(() => (this.pass = undefined));
    return this.pass;
  }

  /** Stops the timer and waits for a pass in progress to end. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pass?.catch(() => undefined);
  }

  private async run(): Promise<CollectionReport> {
    const { store, blobs, clock } = this.deps;
    const { batchSize, unnamedGraceMs } = this.settings;
    const report: CollectionReport = { records: 0, bodies: 0, busy: false, posts: 0 };
    for (;;) {
      const now = clock();
      const keptAfter = now - this.deps.postWindowMs;
      const pruned = await store.prunePosts({ keptAfter, expiredBefore: now - this.settings.postMaxAgeMs, limit: batchSize });
      report.posts += pruned;
      if (pruned < batchSize) break;
      await nextTurn();
    }
    for (;;) {
      const now = clock();
      const deleted = await store.collectBlobRecords({ unnamedBefore: now - unnamedGraceMs, limit: batchSize, at: now });
      if (deleted === 'busy') return { ...report, busy: true };
      report.records += deleted;
      if (deleted < batchSize) break;
      await nextTurn();
    }
    if (!this.swept) {
      for await (const found of blobs.stored()) {
        await store.queueBodies(await store.unrecordedDigests(found), clock());
        await nextTurn();
      }
      this.swept = true;
    }
    for (;;) {
      const now = clock();
      const due = await store.dueBodies(now, batchSize);
      if (due.length === 0) break;
      const settled = await blobs.remove(due, {
        unrecorded: (digests) => store.unrecordedDigests(digests),
        putBefore: now - unnamedGraceMs,
      });
      if (settled === 'busy') return { ...report, busy: true };
      // A body put within the grace and not recorded yet (PostgreSQL) is looked at again once the grace is over.
      await store.settleBodies(due, settled, now + unnamedGraceMs);
      report.bodies += settled.length;
      if (due.length < batchSize) break;
      await nextTurn();
    }
    return report;
  }
}
