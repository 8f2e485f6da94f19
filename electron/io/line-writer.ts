/**
 * A file written one line at a time (a rewritten transcript, a session's transcript log): lines are
 * gathered into writes of about LINE_CHUNK_BYTES, so a file of hundreds of MiB takes a few hundred
 * writes, and nothing holds more than one chunk of it.
 */
import { ChunkWriter } from './file-chunks.ts';
import { LINE_CHUNK_BYTES } from './line-reader.ts';

export class LineWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  private writing: Promise<void> | null = null;

  private constructor(private readonly file: ChunkWriter) {}

  /** Creates (or truncates) `path`, private to this user. */
  static async create(path: string): Promise<LineWriter> {
    return new LineWriter(await ChunkWriter.create(path));
  }

  /** Adds `line` and a newline (`line` must hold none); returns a promise only when a chunk is written (await it). */
  write(line: string): Promise<void> | undefined {
    this.pending.push(line, '\n');
    this.pendingChars += line.length + 1;
    return this.pendingChars >= LINE_CHUNK_BYTES ? this.flush() : undefined;
  }

  /**
   * Writes what is gathered: waits for the chunk before it, then starts this one and returns, so the
   * caller gathers the next chunk while this one is written (a failed write rejects the next call).
   */
  async flush(): Promise<void> {
    await this.settle();
    if (this.pendingChars === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    const writing = this.file.write(Buffer.from(text, 'utf8'));
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
