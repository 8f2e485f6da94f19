/**
 * One folder of JSON records keyed by id, read once at start and written behind.
 *
 * A `put` changes the in-memory record at once (every later read sees it) and queues the file write,
 * which runs on the thread pool, never on the event loop: a push that arrives while a record is being
 * fsynced is handled straight away. Writes of one record run one at a time and coalesce (the newest
 * content is what gets written); each is atomic (temp file, rename) and, when durable, fsynced with
 * its folder. `settled()` resolves once every durable write queued so far is on disk, so a caller
 * that must not act before its record is durable (a backend compare-and-set) awaits it.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { WriteTracker } from './write-tracker.ts';

/**
 * Writes `text` to `file` so that a crash leaves either the old content or the new, never a mix.
 * `durable` also fsyncs the file and its folder, so the write survives power loss.
 */
export async function writeFileAtomic(file: string, text: string, durable: boolean): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    if (durable) await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, file);
  if (!durable) return;
  const folder = await open(join(file, '..'), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** The write queue of one record: whether a write runs, and what the next one must include. */
interface Slot {
  running: boolean;
  dirty: boolean;
  durable: boolean;
  waiters: (() => void)[];
}

const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The first schema problem, as `path: message`. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'invalid';
}

export class RecordFolder<T extends { [key: string]: unknown }> {
  private readonly cache = new Map<string, T>();
  private readonly slots = new Map<string, Slot>();
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

  private write(id: string, durable: boolean): void {
    this.writes.track(this.enqueue(id, durable), durable);
  }

  /** Queues a write of the record's current content; resolves (never rejects) once it is written. */
  private enqueue(id: string, durable: boolean): Promise<void> {
    let slot = this.slots.get(id);
    if (!slot) {
      slot = { running: false, dirty: false, durable: false, waiters: [] };
      this.slots.set(id, slot);
    }
    slot.dirty = true;
    slot.durable ||= durable;
    const written = new Promise<void>((resolve) => slot.waiters.push(resolve));
    if (!slot.running) void this.drain(id, slot);
    return written;
  }

  private async drain(id: string, slot: Slot): Promise<void> {
    slot.running = true;
    while (slot.dirty) {
      const { durable, waiters } = slot;
      slot.dirty = false;
      slot.durable = false;
      slot.waiters = [];
      try {
        await writeFileAtomic(join(this.dir, `${id}.json`), JSON.stringify(this.cache.get(id)), durable);
        this.writes.failed.delete(id);
      } catch (error) {
        this.writes.failed.set(id, (error as Error).message);
      }
      for (const resolve of waiters) resolve();
    }
    slot.running = false;
    this.slots.delete(id);
  }
}
