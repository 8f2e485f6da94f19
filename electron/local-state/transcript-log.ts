/**
 * Each session's transcript as its own append-only log, `<dir>/<session id>.jsonl` (one JSON entry a
 * line), of which memory holds only a bounded window: the newest WINDOW_ENTRIES entries (and any not
 * yet written), the byte offset of every BLOCK_ENTRIES-th entry, a 32-bit hash of each entry's id,
 * and the counts. An older page is read from the file on demand; the whole transcript is streamed
 * from it (a checkpoint, a merge), never held. A new entry is one line appended; a rewrite (a Move's
 * merge) that only adds entries after the lines on disk is appended the same way, and any other is
 * written line by line to a temp file renamed over the log. Appends run behind, one at a time per
 * session, like the records' (record-folder.ts): memory answers at once, `settled()` is the barrier.
 * A crash mid-append leaves a partial last line, which the next start drops (and cuts from the file,
 * so appends stay one entry a line).
 */
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { entryOf, readEntries, scanLinesSync } from './log-lines.ts';
import { LogWindow, idHash } from './log-window.ts';
import { rewriteLog } from './log-rewrite.ts';
import { WriteTracker } from './write-tracker.ts';

/** Reads a log file line by line (synchronously, in chunks) into its window, dropping a partial last line from it. */
function loadLog(path: string): LogWindow {
  const log = new LogWindow();
  if (!existsSync(path)) return log;
  const fd = openSync(path, 'r+');
  try {
    // The size through the fd the scan reads, so both are of one file.
    const size = fstatSync(fd).size;
    const complete = scanLinesSync(fd, 0, size, (line) => {
      const entry = entryOf(line.bytes);
      if (entry) log.load(entry, line.offset);
      else log.clean = false;
    });
    if (complete < size) ftruncateSync(fd, complete);
    log.loaded(complete);
    return log;
  } finally {
    closeSync(fd);
  }
}

export class TranscriptLogs {
  private readonly logs = new Map<string, LogWindow>();
  private readonly writes = new WriteTracker(
    (id) => this.write(id, true),
    (id) => `the transcript log of ${id}`,
  );

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir)) if (name.endsWith('.tmp')) rmSync(join(dir, name), { force: true });
  }

  private path(id: string): string {
    return join(this.dir, `${id}.jsonl`);
  }

  private log(id: string): LogWindow {
    let log = this.logs.get(id);
    if (!log) {
      log = loadLog(this.path(id));
      this.logs.set(id, log);
    }
    return log;
  }

  /** How many entries the session's transcript holds (none for a session without a log). */
  count(id: string): number {
    return this.log(id).count;
  }

  /** About how many bytes the entries take as JSON lines (what a checkpoint carries of them). */
  bytes(id: string): number {
    return this.log(id).bytes;
  }

  /**
   * Entries `from` … `from + count` (clamped to the transcript), in order: from memory when they are
   * in the window, else read from the log file from the nearest indexed offset before them.
   */
  page(id: string, from: number, count: number): TranscriptEntry[] {
    const log = this.log(id);
    const start = Math.max(0, Math.min(from, log.count));
    const end = Math.min(log.count, start + Math.max(0, count));
    if (start >= log.tailFrom) return log.tail.slice(start - log.tailFrom, end - log.tailFrom);
    const out: TranscriptEntry[] = [];
    const fileEnd = Math.min(end, log.tailFrom);
    const { index: first, offset } = log.blockBefore(start);
    let index = first;
    const fd = openSync(this.path(id), 'r');
    try {
      scanLinesSync(fd, offset, log.writtenBytes, (line) => {
        const entry = entryOf(line.bytes);
        if (!entry) return true;
        if (index >= start) out.push(entry);
        index += 1;
        return index < fileEnd;
      });
    } finally {
      closeSync(fd);
    }
    if (end > log.tailFrom) out.push(...log.tail.slice(0, end - log.tailFrom));
    return out;
  }

  /** The newest `count` entries, oldest first. */
  newest(id: string, count: number): TranscriptEntry[] {
    const total = this.count(id);
    return this.page(id, Math.max(0, total - count), count);
  }

  /**
   * Every entry of the session's transcript as it is when iterating begins, in order: from memory
   * when the window holds them all, else read from the log file as it is iterated (then the entries
   * not written yet). Iterate it to its end or break out of it: the file stays open until then.
   */
  entries(id: string): AsyncIterable<TranscriptEntry> {
    const log = this.log(id);
    const path = this.path(id);
    return {
      async *[Symbol.asyncIterator]() {
        // A transcript the window holds whole is read from memory, as it is now.
        if (log.tailFrom === 0) {
          yield* log.tail.slice();
          return;
        }
        // What the log holds as the first entry is asked for, and the file it is in, taken together:
        // a rewrite renamed over the log later leaves this file as it was.
        const writtenBytes = log.writtenBytes;
        const unwritten = log.tail.slice(log.written - log.tailFrom);
        if (writtenBytes > 0) {
          const fd = openSync(path, 'r');
          try {
            yield* readEntries(fd, 0, writtenBytes);
          } finally {
            closeSync(fd);
          }
        }
        yield* unwritten;
      },
    };
  }

  /** The first entry `match` accepts, oldest first (read from the log until it is found), or undefined. */
  async find(id: string, match: (entry: TranscriptEntry) => boolean): Promise<TranscriptEntry | undefined> {
    for await (const entry of this.entries(id)) if (match(entry)) return entry;
    return undefined;
  }

  /** The newest entry `match` accepts (the window first, the whole log only when it has none), or undefined. */
  async findLast(id: string, match: (entry: TranscriptEntry) => boolean): Promise<TranscriptEntry | undefined> {
    const log = this.log(id);
    const inWindow = log.tail.findLast(match);
    if (inWindow || log.tailFrom === 0) return inWindow;
    let last: TranscriptEntry | undefined;
    for await (const entry of this.entries(id)) if (match(entry)) last = entry;
    return last;
  }

  /**
   * Which of `ids` the session's transcript holds: a hash miss answers at once, the window next, and
   * the log file is read once for whatever is left.
   */
  async known(id: string, ids: readonly string[]): Promise<Set<string>> {
    const log = this.log(id);
    const known = new Set<string>();
    const windowIds = new Set(log.tail.map((e) => e.id));
    const search = new Set<string>();
    for (const candidate of ids) {
      if (!log.ids.has(idHash(candidate))) continue;
      if (windowIds.has(candidate)) known.add(candidate);
      else search.add(candidate);
    }
    if (search.size === 0) return known;
    for await (const entry of this.entries(id)) {
      if (!search.delete(entry.id)) continue;
      known.add(entry.id);
      if (search.size === 0) break;
    }
    return known;
  }

  /** Adds entries at the end now; their lines are appended behind (fsynced when `durable`). */
  append(id: string, entries: readonly TranscriptEntry[], durable: boolean): void {
    if (entries.length === 0) return;
    const log = this.log(id);
    for (const entry of entries) log.push(entry);
    this.write(id, durable);
  }

  /**
   * Makes the session's transcript what `through` makes of it (given the entries it holds now, in
   * order, as a stream): when the lines on disk are the first of the result (a Move's merge that only
   * added entries after them), the rest is appended to the log; otherwise the log is rewritten line
   * by line to a temp file renamed over it. Entries appended meanwhile follow the result. Resolves
   * once it is written (fsynced when `durable`); rejects, changing nothing, when it cannot be.
   */
  async rewrite(
    id: string,
    through: (entries: AsyncIterable<TranscriptEntry>) => AsyncIterable<TranscriptEntry>,
    durable: boolean,
  ): Promise<void> {
    const log = this.log(id);
    // Taken at once when free, so what is appended after this call follows the result.
    const held = log.exclusive();
    if (held) await held;
    let done!: () => void;
    this.writes.track(new Promise<void>((resolve) => (done = resolve)), durable);
    try {
      await rewriteLog({ dir: this.dir, path: this.path(id), log, entries: this.entries(id), through, durable });
    } finally {
      done();
      log.release(() => this.drain(id, log));
    }
  }

  /** Resolves when every durable write queued before the call is on disk (with `all`, every write); rejects while one cannot be written. */
  settled(all = false): Promise<void> {
    return this.writes.settled(all);
  }

  private write(id: string, durable: boolean): void {
    const log = this.log(id);
    log.durable ||= durable;
    this.writes.track(new Promise<void>((resolve) => log.waiters.push(resolve)), durable);
    if (!log.running) void this.drain(id, log);
  }

  private async drain(id: string, log: LogWindow): Promise<void> {
    log.running = true;
    while (log.waiters.length > 0) {
      const { durable, waiters } = log;
      log.durable = false;
      log.waiters = [];
      try {
        await this.appendLines(id, log, durable);
        this.writes.failed.delete(id);
      } catch (error) {
        this.writes.failed.set(id, (error as Error).message);
      }
      for (const resolve of waiters) resolve();
    }
    log.release(null);
  }

  /** Appends the entries not written yet, after the last complete line (a failed append's part line is cut first). */
  private async appendLines(id: string, log: LogWindow, durable: boolean): Promise<void> {
    const upTo = log.count;
    if (log.written >= upTo) return;
    const lines = log.tail.slice(log.written - log.tailFrom, upTo - log.tailFrom).map((entry) => `${JSON.stringify(entry)}\n`);
    const text = lines.join('');
    const file = await open(this.path(id), 'a', 0o600);
    try {
      if ((await file.stat()).size !== log.writtenBytes) await file.truncate(log.writtenBytes);
      await file.write(text);
      if (durable) await file.sync();
    } finally {
      await file.close();
    }
    log.wrote(lines.map((line) => Buffer.byteLength(line)));
  }
}
