/**
 * A JSON-lines file of any size read one line at a time (a Claude transcript, a Codex rollout):
 * chunks of LINE_CHUNK_BYTES through one reused buffer, each line decoded on its own, never the
 * whole file as a string. A handler that returns nothing is not awaited (no promise per line).
 * No line is gathered past LINE_MAX_BYTES: a longer one stops the read with LineTooLong before
 * it is in memory, so a file that is one huge line costs what a short one does.
 */
import { forEachChunk } from './file-chunks.ts';

/**
 * Called with each line (without its newline), its 1-based number and, from a file, its UTF-8 bytes
 * (a view valid until the handler returns or its promise settles); may pause reading with a promise.
 */
export type LineHandler = (line: string, lineNumber: number, bytes?: Buffer) => void | Promise<void>;

const NEWLINE = 0x0a;
/** Bytes read at a time: large enough that a file of hundreds of MiB takes a few hundred reads. */
export const LINE_CHUNK_BYTES = 1024 * 1024;
/** The longest line read from a provider's file: the same 16 MiB as a checkpoint's own lines. */
export const LINE_MAX_BYTES = 16 * 1024 * 1024;

/** A line longer than the reader's limit: the file is not read on. */
export class LineTooLong extends Error {
  constructor(
    readonly lineNumber: number,
    readonly limit: number,
  ) {
    super(`line ${lineNumber} is longer than ${limit} bytes`);
  }
}

/** Called with each line's UTF-8 bytes (a view valid until it returns or its promise settles) and its 1-based number. */
export type LineBytesHandler = (bytes: Buffer, lineNumber: number) => void | Promise<void>;

/**
 * Splits bytes pushed chunk by chunk into lines (a line split across chunks is carried, each piece
 * copied, and joined once at its end), calling `each` for every line; a line over `maxLineBytes`
 * throws LineTooLong as soon as it passes the limit.
 */
export class LineSplitter {
  private readonly carry: Buffer[] = [];
  private carried = 0;
  /** Lines handed out so far. */
  lines = 0;

  constructor(
    private readonly each: LineBytesHandler,
    private readonly maxLineBytes = LINE_MAX_BYTES,
  ) {}

  /** Takes the next bytes (the chunk may be reused once this resolves). */
  async push(chunk: Buffer): Promise<void> {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      const paused = this.line(chunk.subarray(start, end));
      if (paused) await paused;
      start = end + 1;
    }
    this.carryFrom(chunk, start);
  }

  /**
   * Takes the next bytes at once, for a handler that returns nothing: every line in them is handed
   * out before this returns; throws LineTooLong, as push rejects, at a line over the limit.
   */
  take(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      void this.line(chunk.subarray(start, end));
      start = end + 1;
    }
    this.carryFrom(chunk, start);
  }

  /** Carries the bytes of `chunk` from `start` (a line's beginning) to the next chunk. */
  private carryFrom(chunk: Buffer, start: number): void {
    if (start >= chunk.length) return;
    this.guard(chunk.length - start);
    this.carry.push(Buffer.from(chunk.subarray(start)));
    this.carried += chunk.length - start;
  }

  /** Every byte is in: the last line, when it has no newline. */
  async end(): Promise<number> {
    if (this.carried > 0) await this.line(Buffer.alloc(0));
    return this.lines;
  }

  private guard(more: number): void {
    if (this.carried + more > this.maxLineBytes) throw new LineTooLong(this.lines + 1, this.maxLineBytes);
  }

  private line(tail: Buffer): void | Promise<void> {
    let bytes = tail;
    if (this.carried > 0) {
      this.guard(tail.length);
      bytes = Buffer.concat([...this.carry, tail]);
      this.carry.length = 0;
      this.carried = 0;
    } else if (tail.length > this.maxLineBytes) this.guard(tail.length);
    return this.each(bytes, (this.lines += 1));
  }
}

/**
 * Calls `each` for every line of `path` in order (a last line without a newline included), and
 * `onBytes` with the bytes read so far after each chunk; resolves with the number of lines, or
 * rejects with LineTooLong at a line over `maxLineBytes`.
 */
export async function forEachLine(
  path: string,
  each: LineHandler,
  onBytes?: (doneBytes: number) => void,
  maxLineBytes = LINE_MAX_BYTES,
): Promise<number> {
  const lines = new LineSplitter((bytes, number) => each(bytes.toString('utf8'), number, bytes), maxLineBytes);
  let done = 0;
  await forEachChunk(
    path,
    async (chunk) => {
      await lines.push(chunk);
      done += chunk.length;
      onBytes?.(done);
    },
    { chunkBytes: LINE_CHUNK_BYTES },
  );
  return lines.end();
}

/** Calls `each` for every line of `text` (the same lines forEachLine reads from a file of it). */
export async function forEachTextLine(text: string, each: LineHandler): Promise<number> {
  let lineNumber = 0;
  let start = 0;
  for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
    await each(text.slice(start, end), (lineNumber += 1));
    start = end + 1;
  }
  if (start < text.length) await each(text.slice(start), (lineNumber += 1));
  return lineNumber;
}
