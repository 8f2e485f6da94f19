/**
 * A JSON-lines file of any size read one line at a time (a Claude transcript, a Codex rollout):
 * chunks of LINE_CHUNK_BYTES through one reused buffer, each line decoded on its own, never the
 * whole file as a string. A handler that returns nothing is not awaited (no promise per line).
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

/**
 * Calls `each` for every line of `path` in order (a last line without a newline included), and
 * `onBytes` with the bytes read so far after each chunk; resolves with the number of lines.
 */
export async function forEachLine(path: string, each: LineHandler, onBytes?: (doneBytes: number) => void): Promise<number> {
  let carry = null as Buffer | null;
  let lineNumber = 0;
  let done = 0;
  await forEachChunk(
    path,
    async (chunk) => {
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
        let bytes = chunk.subarray(start, end);
        if (carry !== null) {
          bytes = Buffer.concat([carry, bytes]);
          carry = null;
        }
        const paused = each(bytes.toString('utf8'), (lineNumber += 1), bytes);
        if (paused) await paused;
        start = end + 1;
      }
      // Copied: the chunk's buffer is reused for the next read.
      if (start < chunk.length) carry = carry === null ? Buffer.from(chunk.subarray(start)) : Buffer.concat([carry, chunk.subarray(start)]);
      done += chunk.length;
      onBytes?.(done);
    },
    { chunkBytes: LINE_CHUNK_BYTES },
  );
  if (carry !== null) await each(carry.toString('utf8'), (lineNumber += 1), carry);
  return lineNumber;
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
