/**
 * Large files read and written in fixed chunks through one reused buffer, so moving a file of any
 * size leaves no trail of spent buffers: node:fs read streams allocate a fresh buffer per chunk, and
 * V8 lets some 32 MiB of such garbage pile up before it collects it (measured on a 64 MiB upload).
 */
import { closeSync, fsync, openSync, write } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';

/** Chunks of this size are read, hashed, encrypted or written at a time. */
export const CHUNK_BYTES = 64 * 1024;

/**
 * Calls `each` with the bytes of `path` from `start` (default 0) for `length` bytes (default: to the
 * end), one chunk at a time, in order. The chunk is a view of a reused buffer: `each` must be done
 * with it when its promise settles. Rejects when the file ends before `length` bytes.
 */
export async function forEachChunk(
  path: string,
  each: (chunk: Buffer) => void | Promise<void>,
  range: { start?: number; length?: number; chunkBytes?: number } = {},
): Promise<number> {
  const file = await open(path, 'r');
  try {
    const start = range.start ?? 0;
    const length = range.length ?? (await file.stat()).size - start;
    return await readRange(file, start, length, each, range.chunkBytes);
  } finally {
    await file.close();
  }
}

/** Reads `length` bytes of an open file from `start` into `each`, chunk by chunk (see forEachChunk; chunks of `chunkBytes`). */
export async function readRange(
  file: FileHandle,
  start: number,
  length: number,
  each: (chunk: Buffer) => void | Promise<void>,
  chunkBytes = CHUNK_BYTES,
): Promise<number> {
  const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(1, length)));
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, length - done), start + done);
    if (bytesRead === 0) throw new Error(`the file ended after ${done} of ${length} bytes`);
    await each(buffer.subarray(0, bytesRead));
    done += bytesRead;
  }
  return done;
}

const writeFd = promisify(write);
const fsyncFd = promisify(fsync);

/**
 * A file written chunk by chunk from its start; `durable` close also fsyncs it. Chunks are written
 * before `write` resolves, so the caller may reuse them. The file is opened and closed on this thread
 * (metadata work of microseconds, where each thread-pool round trip costs two thread wake-ups: a small
 * file, such as a small checkpoint's staged part, was four of them); writes and the fsync go through the pool.
 */
export class ChunkWriter {
  private position = 0;
  private fdOpen = true;
  /** The last write, settled (never rejects): a close waits for it, so no write reaches a reused descriptor. */
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly fd: number) {}

  /** Creates (or truncates) `path`, private to this user. */
  static async create(path: string): Promise<ChunkWriter> {
    return new ChunkWriter(openSync(path, 'w', 0o600));
  }

  /** Bytes written so far. */
  get size(): number {
    return this.position;
  }

  write(chunk: Uint8Array): Promise<void> {
    const writing = (async () => {
      let offset = 0;
      while (offset < chunk.byteLength) {
        const { bytesWritten } = await writeFd(this.fd, chunk, offset, chunk.byteLength - offset, this.position);
        offset += bytesWritten;
        this.position += bytesWritten;
      }
    })();
    this.writing = writing.catch(() => undefined);
    return writing;
  }

  /** Closes the file (once), after its last write, fsynced first when `durable`. */
  async close(durable = false): Promise<void> {
    if (!this.fdOpen) return;
    await this.writing;
    if (!this.fdOpen) return;
    try {
      if (durable) await fsyncFd(this.fd);
    } finally {
      // Marked first: a descriptor's number is reused once it is closed.
      this.fdOpen = false;
      closeSync(this.fd);
    }
  }
}
