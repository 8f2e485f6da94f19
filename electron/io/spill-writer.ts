/**
 * Bytes kept in memory while they are few, written to a file once they pass a limit: a small body
 * (a demo session's checkpoint is a few KB) never touches the disk, a large one is never held whole.
 */
import { ChunkWriter } from './file-chunks.ts';

export class SpillWriter {
  private chunks: Buffer[] = [];
  private held = 0;
  private file: ChunkWriter | null = null;

  /** `path`: the file the bytes go to once they pass `limit` bytes (made then, never before). */
  constructor(
    private readonly path: string,
    private readonly limit: number,
  ) {}

  /** Bytes written so far. */
  get size(): number {
    return this.file?.size ?? this.held;
  }

  /** Takes the next bytes (copied or written before this resolves: the caller may reuse them). */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.file) return this.file.write(chunk);
    this.chunks.push(Buffer.from(chunk));
    this.held += chunk.byteLength;
    if (this.held <= this.limit) return;
    this.file = await ChunkWriter.create(this.path);
    for (const held of this.chunks) await this.file.write(held);
    this.chunks = [];
  }

  /** Ends the bytes: those held in memory, or null when they went to the file (closed now). */
  async close(): Promise<Buffer[] | null> {
    if (!this.file) return this.chunks;
    await this.file.close();
    return null;
  }
}
