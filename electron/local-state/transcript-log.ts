/**
 * Each session's transcript as its own append-only log, `<dir>/<session id>.jsonl` (one JSON entry a
 * line), with the entries in memory once asked for. A new entry is one line appended, never the
 * session rewritten; a merge after a Move that only adds entries after the lines on disk is appended
 * the same way, and any other merge replaces the log, written line by line to a temp file and
 * renamed over it. Writes run behind, one at a time per session, like the records' (record-folder.ts):
 * memory answers at once, `settled()` is the barrier. A crash mid-append leaves a partial last line,
 * which the next start drops (and cuts from the file, so appends stay one entry a line).
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TranscriptEntrySchema, type TranscriptEntry } from '../../shared/agents.ts';
import { CHUNK_BYTES } from '../io/file-chunks.ts';
import { LineWriter } from '../io/line-writer.ts';
import { WriteTracker } from './write-tracker.ts';

interface Log {
  entries: TranscriptEntry[];
  /** How many of `entries` are in the file, in order (after a replace: none until it is rewritten). */
  written: number;
  rewrite: boolean;
  /** UTF-8 bytes of the log's lines, newlines included. */
  bytes: number;
  running: boolean;
  durable: boolean;
  waiters: (() => void)[];
}

const lineBytes = (entry: TranscriptEntry) => Buffer.byteLength(JSON.stringify(entry)) + 1;

/**
 * Whether the lines in the file (`log.written` of its entries, no write running) are the first of
 * `entries` (serialised as `lines`). An entry the merge kept as the same object needs no serialising.
 */
function writtenPrefixOf(log: Log, entries: readonly TranscriptEntry[], lines: readonly string[]): boolean {
  if (log.written > lines.length) return false;
  for (let i = 0; i < log.written; i++) {
    const written = log.entries[i];
    if (written !== entries[i] && JSON.stringify(written) !== lines[i]) return false;
  }
  return true;
}

/** Reads a log file line by line (synchronously, in chunks), dropping a partial last line from it. */
function loadLog(path: string): { entries: TranscriptEntry[]; bytes: number } {
  const entries: TranscriptEntry[] = [];
  if (!existsSync(path)) return { entries, bytes: 0 };
  const fd = openSync(path, 'r+');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry: Buffer | null = null;
    let position = 0;
    let complete = 0;
    for (let read = readSync(fd, buffer, 0, buffer.length, position); read > 0; read = readSync(fd, buffer, 0, buffer.length, position)) {
      let chunk = buffer.subarray(0, read);
      if (carry) chunk = Buffer.concat([carry, chunk]);
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, start)) {
        const parsed = TranscriptEntrySchema.safeParse(safeJson(chunk.toString('utf8', start, end)));
        if (parsed.success) entries.push(parsed.data);
        start = end + 1;
      }
      complete = position - (carry?.length ?? 0) + start;
      carry = start < chunk.length ? Buffer.from(chunk.subarray(start)) : null;
      position += read;
    }
    if (carry) ftruncateSync(fd, complete);
    return { entries, bytes: complete };
  } finally {
    closeSync(fd);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class TranscriptLogs {
  private readonly logs = new Map<string, Log>();
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

  private log(id: string): Log {
    let log = this.logs.get(id);
    if (!log) {
      const loaded = loadLog(this.path(id));
      log = { ...loaded, written: loaded.entries.length, rewrite: false, running: false, durable: false, waiters: [] };
      this.logs.set(id, log);
    }
    return log;
  }

  /** The session's entries in order (none for a session without a log). Read-only: change it with append/replace. */
  entries(id: string): readonly TranscriptEntry[] {
    return this.log(id).entries;
  }

  /** About how many bytes the entries take as JSON lines (what a checkpoint carries of them). */
  bytes(id: string): number {
    return this.log(id).bytes;
  }

  /** Adds entries at the end now; their lines are appended behind (fsynced when `durable`). */
  append(id: string, entries: readonly TranscriptEntry[], durable: boolean): void {
    if (entries.length === 0) return;
    const log = this.log(id);
    for (const entry of entries) {
      log.entries.push(entry);
      log.bytes += lineBytes(entry);
    }
    this.write(id, durable);
  }

  /**
   * Makes `entries` the session's transcript now. When the lines already in the file are the first of
   * `entries` (a Move's merge that only added entries after them), the rest is appended behind, as
   * `append` would; otherwise the log is rewritten behind, line by line.
   */
  replace(id: string, entries: readonly TranscriptEntry[], durable: boolean): void {
    const log = this.log(id);
    const lines = entries.map((entry) => JSON.stringify(entry));
    const keepsWritten = !log.running && !log.rewrite && writtenPrefixOf(log, entries, lines);
    log.entries = [...entries];
    log.bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    if (!keepsWritten) {
      log.written = 0;
      log.rewrite = true;
    }
    this.write(id, durable);
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

  private async drain(id: string, log: Log): Promise<void> {
    log.running = true;
    while (log.waiters.length > 0) {
      const { durable, waiters } = log;
      log.durable = false;
      log.waiters = [];
      try {
        if (log.rewrite) await this.rewrite(id, log, durable);
        else await this.appendLines(id, log, durable);
        this.writes.failed.delete(id);
      } catch (error) {
        this.writes.failed.set(id, (error as Error).message);
        log.rewrite = true;
      }
      for (const resolve of waiters) resolve();
    }
    log.running = false;
  }

  private async appendLines(id: string, log: Log, durable: boolean): Promise<void> {
    const upTo = log.entries.length;
    if (log.written >= upTo) return;
    const text = log.entries
      .slice(log.written, upTo)
      .map((entry) => `${JSON.stringify(entry)}\n`)
      .join('');
    const file = await open(this.path(id), 'a', 0o600);
    try {
      await file.write(text);
      if (durable) await file.sync();
    } finally {
      await file.close();
    }
    log.written = upTo;
  }

  private async rewrite(id: string, log: Log, durable: boolean): Promise<void> {
    log.rewrite = false;
    const entries = log.entries;
    const upTo = entries.length;
    const temp = `${this.path(id)}.${process.pid}.${Date.now()}.tmp`;
    try {
      const out = await LineWriter.create(temp);
      try {
        for (let i = 0; i < upTo; i++) await out.write(JSON.stringify(entries[i]));
      } finally {
        await out.close(durable);
      }
      await rename(temp, this.path(id));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    if (durable) {
      const folder = await open(this.dir, 'r');
      try {
        await folder.sync();
      } finally {
        await folder.close();
      }
    }
    // Replaced again while this ran: the next pass rewrites. Else entries appended since (each queued
    // a write of its own) follow as lines.
    if (log.entries === entries && !log.rewrite) log.written = upTo;
  }
}
