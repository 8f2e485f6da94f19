/**
 * A file written one line at a time (a rewritten transcript, a session's transcript log): lines are
 * gathered into writes of about CHUNK_BYTES, so a file of a hundred thousand lines takes a few
 * thousand writes, and nothing holds more than one chunk of it.
 */
import { CHUNK_BYTES, ChunkWriter } from './file-chunks.ts';

export class LineWriter {
  private pending: string[] = [];
  private pendingChars = 0;

  private constructor(private readonly file: ChunkWriter) {}

  /** Creates (or truncates) `path`, private to this user. */
  static async create(path: string): Promise<LineWriter> {
    return new LineWriter(await ChunkWriter.create(path));
  }

  /** Adds `line` and a newline (`line` must hold none). */
  async write(line: string): Promise<void> {
    this.pending.push(line, '\n');
    this.pendingChars += line.length + 1;
    if (this.pendingChars >= CHUNK_BYTES) await this.flush();
  }

  /** Writes what is gathered. */
  async flush(): Promise<void> {
    if (this.pendingChars === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    await this.file.write(Buffer.from(text, 'utf8'));
  }

  /** Flushes and closes the file, fsynced first when `durable`. */
  async close(durable = false): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.file.close(durable);
    }
  }
}
