/**
 * What memory holds of one session's transcript log (transcript-log.ts): the counts, the newest
 * entries (at least WINDOW_ENTRIES of them, and every entry not written yet), the byte offset of
 * every BLOCK_ENTRIES-th entry in the file, and a 32-bit hash of every entry's id — so its size grows
 * with the number of entries by a few bytes each, never with their text. It also queues the log's
 * writes: appends run one batch at a time, and a rewrite runs alone.
 */
import type { TranscriptEntry } from '../../shared/agents.ts';
import { hashOf } from './id-table.ts';

/** The newest entries kept in memory (the run view shows the newest 200 first). */
export const WINDOW_ENTRIES = 512;
/** Every this many entries the index keeps a byte offset: an older page reads at most this many lines before its own. */
export const BLOCK_ENTRIES = 64;

/**
 * The id's hash (id-table.ts) cut to 30 bits so V8 keeps it as a small integer (no
 * heap number per entry): a quick "surely not here" for an id lookup.
 */
export function idHash(id: string): number {
  return hashOf(id) & 0x3fffffff;
}

const lineBytes = (entry: TranscriptEntry) => Buffer.byteLength(JSON.stringify(entry)) + 1;

export class LogWindow {
  /** Entries in the transcript now (written or not). */
  count = 0;
  /** UTF-8 bytes of all the entries' lines, newlines included. */
  bytes = 0;
  /** Entries `tailFrom` … `count - 1`, in order. Every entry before `tailFrom` is in the file. */
  tail: TranscriptEntry[] = [];
  tailFrom = 0;
  /** How many entries are in the file, in order, and the bytes they take there. */
  written = 0;
  writtenBytes = 0;
  /** `blocks[b]`: where entry `b * BLOCK_ENTRIES` starts in the file (for each such entry written). */
  blocks: number[] = [];
  /** idHash of every entry's id. */
  ids = new Set<number>();
  /** Whether every line of the file holds an entry (a line that does not is never appended after). */
  clean = true;
  running = false;
  durable = false;
  waiters: (() => void)[] = [];
  private idle: (() => void)[] = [];

  /** Takes in an entry read from the file at `offset` (the scan at first touch). */
  load(entry: TranscriptEntry, offset: number): void {
    if (this.count % BLOCK_ENTRIES === 0) this.blocks.push(offset);
    this.count += 1;
    this.written += 1;
    this.ids.add(idHash(entry.id));
    this.tail.push(entry);
    this.trim();
  }

  /** The scan read `bytes` of complete lines. */
  loaded(bytes: number): void {
    this.bytes = bytes;
    this.writtenBytes = bytes;
  }

  /** Adds an entry at the end, not written yet. */
  push(entry: TranscriptEntry): void {
    this.tail.push(entry);
    this.count += 1;
    this.bytes += lineBytes(entry);
    this.ids.add(idHash(entry.id));
  }

  /** The next entries not written yet were appended, lines of `lengths` bytes. */
  wrote(lengths: readonly number[]): void {
    for (const length of lengths) {
      if (this.written % BLOCK_ENTRIES === 0) this.blocks.push(this.writtenBytes);
      this.written += 1;
      this.writtenBytes += length;
    }
    this.trim();
  }

  /** The indexed entry at or before `index`, and where its line starts. */
  blockBefore(index: number): { index: number; offset: number } {
    const block = Math.min(Math.floor(index / BLOCK_ENTRIES), this.blocks.length - 1);
    return { index: block * BLOCK_ENTRIES, offset: this.blocks[block] ?? 0 };
  }

  /** Drops the oldest written entries beyond the window (amortised: only once the tail holds twice it). */
  private trim(): void {
    if (this.tail.length <= 2 * WINDOW_ENTRIES) return;
    const cut = Math.min(this.count - WINDOW_ENTRIES, this.written) - this.tailFrom;
    if (cut <= 0) return;
    this.tail.splice(0, cut);
    this.tailFrom += cut;
  }

  /**
   * The log became `count` entries in `bytes` of file (`blocks` its index, `newest` its last entries,
   * `ids` their hashes), and then the entries appended since `before` entries (not written yet).
   */
  replaced(next: { count: number; bytes: number; blocks: number[]; newest: TranscriptEntry[]; ids: Set<number> }, before: number): void {
    const since = this.tail.slice(before - this.tailFrom);
    this.count = next.count;
    this.written = next.count;
    this.writtenBytes = next.bytes;
    this.bytes = next.bytes;
    this.blocks = next.blocks;
    this.ids = next.ids;
    this.tail = next.newest;
    this.tailFrom = next.count - next.newest.length;
    this.clean = true;
    for (const entry of since) this.push(entry);
  }

  /**
   * Holds the log for the caller (until `release`): at once when no write of it runs (undefined),
   * else once none does (the promise).
   */
  exclusive(): Promise<void> | undefined {
    if (!this.running) {
      this.running = true;
      return undefined;
    }
    return (async () => {
      while (this.running) await new Promise<void>((resolve) => this.idle.push(resolve));
      this.running = true;
    })();
  }

  /** Lets the log's next write run: `drain` when appends are waiting (and given), else whoever waits for it. */
  release(drain: (() => Promise<void>) | null): void {
    this.running = false;
    if (drain && this.waiters.length > 0) {
      void drain();
      return;
    }
    for (const resolve of this.idle.splice(0)) resolve();
  }
}
