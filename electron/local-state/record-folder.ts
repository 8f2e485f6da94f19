/**
 * One folder of JSON records keyed by id, read once at start and written behind.
 *
 * A `put` changes the in-memory record at once (every later read sees it) and queues the record. Its
 * write is a page-cache write of microseconds made on this thread; its fdatasync runs on the thread
 * pool, never on the event loop, so a push that arrives while a record is made durable is handled
 * straight away. Records are written through the folder's journal
 * (record-journal.ts): the records queued while one write runs go together in the next, the newest
 * content of each, and a durable batch costs one fdatasync. `settled()` resolves once every durable
 * write queued so far is on disk, so a caller that must not act before its record is durable (a
 * backend compare-and-set) awaits it. `close()` folds the journal into the record files.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { JOURNAL_NAME, readJournal, RecordJournal } from './record-journal.ts';
import { WriteTracker } from './write-tracker.ts';

const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The first schema problem, as `path: message`. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'invalid';
}

export class RecordFolder<T extends { [key: string]: unknown }> {
  private readonly cache = new Map<string, T>();
  private readonly journal: RecordJournal;
  /** Records changed since the running write began (id → whether any change was durable). */
  private readonly queued = new Map<string, boolean>();
  private waiters: (() => void)[] = [];
  /** Whether a write (or the close's compaction) runs; `idle` hears when it stops. */
  private running = false;
  private idle: (() => void)[] = [];
  /** Writes queued and not yet on disk; records whose last write failed are written again by the next `settled()`. */
  private readonly writes = new WriteTracker(
    (id) => this.write(id, true),
    (id) => `local record ${id}`,
  );
  /** Record files that could not be read at start (truncated, not JSON, wrong shape): id → why. */
  private readonly unreadableFiles = new Map<string, string>();

  constructor(
    private readonly dir: string,
    schema: z.ZodType<T>,
    key: (record: T) => string,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.tmp')) {
        rmSync(join(dir, name), { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      // A record that cannot be read does not crash the device: it is listed, for the owner to rebuild or report.
      const id = name.slice(0, -'.json'.length);
      try {
        const parsed = schema.safeParse(JSON.parse(readFileSync(join(dir, name), 'utf8')));
        if (parsed.success) this.cache.set(key(parsed.data), parsed.data);
        else this.unreadableFiles.set(id, `it does not have the expected shape (${describeIssue(parsed.error)})`);
      } catch (error) {
        this.unreadableFiles.set(id, error instanceof SyntaxError ? 'it is not complete JSON (truncated?)' : (error as Error).message);
      }
    }
    // The journal holds what changed since the files were last brought up to date: it is read over them.
    const found = readJournal(join(dir, JOURNAL_NAME));
    const kept = new Map<string, string>();
    for (const { id, record, json } of found.records.values()) {
      const parsed = schema.safeParse(record);
      if (!parsed.success || key(parsed.data) !== id) continue;
      this.cache.set(id, parsed.data);
      kept.set(id, json);
    }
    this.journal = new RecordJournal(dir, found, kept);
  }

  /** The record files that could not be read at start and have not been written since: id → why. */
  unreadable(): Map<string, string> {
    return new Map([...this.unreadableFiles].filter(([id]) => !this.cache.has(id)));
  }

  get(id: string): T | undefined {
    const record = this.cache.get(id);
    return record === undefined ? undefined : structuredClone(record);
  }

  all(): T[] {
    return [...this.cache.values()].map((record) => structuredClone(record));
  }

  /**
   * Changes the stored record in place (no copy: a session's transcript can be long) and writes it
   * behind; false when there is no such record.
   */
  update(id: string, change: (record: T) => void, durable: boolean): boolean {
    const record = this.cache.get(id);
    if (record === undefined) return false;
    change(record);
    this.write(id, durable);
    return true;
  }

  /** The stored record itself, not a copy: for reading only (views), where copying would cost. */
  peek(id: string): Readonly<T> | undefined {
    return this.cache.get(id);
  }

  /** Every stored record itself, not copies: for reading only. */
  peekAll(): readonly Readonly<T>[] {
    return [...this.cache.values()];
  }

  /** Stores `record` now and writes it behind; a durable put is awaited by `settled()`. */
  put(id: string, record: T, durable: boolean): void {
    if (!RECORD_ID.test(id)) throw new Error(`invalid record id ${JSON.stringify(id)}`);
    this.cache.set(id, structuredClone(record));
    this.write(id, durable);
  }

  /**
   * Resolves when every durable write queued before the call is on disk (with `all`, every write).
   * A record whose write failed is written again first; while any still cannot be written, rejects.
   */
  settled(all = false): Promise<void> {
    return this.writes.settled(all);
  }

  /** Brings the record files up to date from the journal (after every queued write) and closes it. */
  async close(): Promise<void> {
    await this.settled(true);
    while (this.running) await new Promise<void>((resolve) => this.idle.push(resolve));
    // Writes queued from here wait for the compaction, as they would behind a write.
    this.running = true;
    try {
      await this.journal.compact();
      await this.journal.close();
    } finally {
      this.running = false;
      if (this.queued.size > 0) void this.drain();
    }
  }

  private write(id: string, durable: boolean): void {
    this.queued.set(id, durable || (this.queued.get(id) ?? false));
    this.writes.track(new Promise<void>((resolve) => this.waiters.push(resolve)), durable);
    if (!this.running) void this.drain();
  }

  /** Writes the queued records, a batch at a time, until none is left; never rejects. */
  private async drain(): Promise<void> {
    this.running = true;
    while (this.queued.size > 0) {
      const batch = [...this.queued];
      const waiters = this.waiters;
      this.queued.clear();
      this.waiters = [];
      try {
        const records = batch.map(([id]) => [id, JSON.stringify(this.cache.get(id))] as const);
        await this.journal.append(
          records,
          batch.some(([, durable]) => durable),
        );
        for (const [id] of batch) this.writes.failed.delete(id);
        if (this.journal.due()) await this.journal.compact();
      } catch (error) {
        for (const [id] of batch) this.writes.failed.set(id, (error as Error).message);
      }
      for (const resolve of waiters) resolve();
    }
    this.running = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}
