/**
 * A file written one line at a time (a rewritten transcript, a session's transcript log): lines are
 * encoded (or copied, when given as bytes) straight into one of two reused buffers of
 * LINE_CHUNK_BYTES, and a full buffer is written while the other fills — so a file of hundreds of
 * MiB takes a few hundred writes, nothing holds more than two chunks of it, and no line is joined
 * into a larger string first. A file known to be small gets small buffers (a checkpoint's thousands
 * of small side files would otherwise allocate 2 MiB each).
 */
import { ChunkWriter } from './file-chunks.ts';
import { LINE_CHUNK_BYTES } from './line-reader.ts';

/** A line in pieces: text (encoded as UTF-8) and bytes (copied), in order. */
export type LinePart = string | Uint8Array;

const NEWLINE = 0x0a;
const partBytes = (part: LinePart) => (typeof part === 'string' ? Buffer.byteLength(part) : part.byteLength);

/** The smallest buffer a writer sized for a small file gets. */
const SMALL_CHUNK_BYTES = 16 * 1024;

export class LineWriter {
  private readonly buffers: readonly [Buffer, Buffer];
  private readonly chunkBytes: number;
  private turn = 0;
  private used = 0;
  private writing: Promise<void> | null = null;

  private constructor(
    private readonly file: ChunkWriter,
    sizeHint: number,
  ) {
    this.chunkBytes = Math.min(LINE_CHUNK_BYTES, Math.max(SMALL_CHUNK_BYTES, Math.ceil(sizeHint * 1.25)));
    this.buffers = [Buffer.allocUnsafe(this.chunkBytes), Buffer.allocUnsafe(this.chunkBytes)];
  }

  /** Creates (or truncates) `path`, private to this user; `sizeHint`: about how many bytes it will hold, when known. */
  static async create(path: string, sizeHint = LINE_CHUNK_BYTES): Promise<LineWriter> {
    return new LineWriter(await ChunkWriter.create(path), sizeHint);
  }

  /** Adds `line` and a newline (`line` must hold none); returns a promise only when a chunk is written (await it). */
  write(line: string): Promise<void> | undefined {
    return this.writeParts([line]);
  }

  /**
   * Adds the line made of `parts` and a newline (no part may hold one); the bytes are copied before
   * the returned promise settles (there is one only when a chunk is written: await it).
   */
  writeParts(parts: readonly LinePart[]): Promise<void> | undefined {
    let size = 1;
    for (const part of parts) size += partBytes(part);
    if (this.used + size > this.chunkBytes) return this.flushThen(parts, size);
    this.put(parts);
    return undefined;
  }

  private async flushThen(parts: readonly LinePart[], size: number): Promise<void> {
    await this.flush();
    if (size <= this.chunkBytes) this.put(parts);
    else {
      // A line longer than a chunk is written on its own.
      await this.settle();
      await this.file.write(Buffer.concat([...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)), Buffer.from([NEWLINE])]));
    }
  }

  private put(parts: readonly LinePart[]): void {
    const buffer = this.buffers[this.turn]!;
    for (const part of parts) {
      if (typeof part === 'string') this.used += buffer.write(part, this.used);
      else {
        buffer.set(part, this.used);
        this.used += part.byteLength;
      }
    }
    buffer[this.used] = NEWLINE;
    this.used += 1;
  }

  /**
   * Writes what is gathered: waits for the chunk before it, then starts this one and returns, so the
   * caller gathers the next chunk into the other buffer while this one is written (a failed write
   * rejects the next call).
   */
  async flush(): Promise<void> {
    await this.settle();
    if (this.used === 0) return;
    const writing = this.file.write(this.buffers[this.turn]!.subarray(0, this.used));
    this.turn = 1 - this.turn;
    this.used = 0;
    this.writing = writing;
    writing.catch(() => undefined); // surfaced by the next settle()
  }

  /** Waits for the chunk being written; rejects when it failed. */
  private async settle(): Promise<void> {
    const writing = this.writing;
    this.writing = null;
    if (writing) await writing;
  }

  /** Flushes and closes the file, fsynced first when `durable`. */
  async close(durable = false): Promise<void> {
    try {
      await this.flush();
      await this.settle();
    } finally {
      await this.file.close(durable);
    }
  }
}
