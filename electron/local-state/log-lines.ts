/**
 * The lines of a transcript log read from an open file between two byte offsets, one chunk at a
 * time through one reused buffer: synchronously (a page of entries for the UI, the scan at first
 * touch) or as an async stream (a whole transcript for a checkpoint or a merge), so a log of hundreds
 * of MiB is never one string or one buffer. Entry lines are parsed and checked one at a time; a
 * line that is not an entry is skipped the same way by every reader.
 */
import { read, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { TranscriptEntrySchema, type TranscriptEntry } from '../../shared/agents.ts';
import { CHUNK_BYTES } from '../io/file-chunks.ts';

const NEWLINE = 0x0a;

/** One line: its bytes without the newline (a view, valid until the next line is asked for) and where it starts. */
export interface Line {
  bytes: Buffer;
  offset: number;
}

/** The entry a log line holds, or null when it holds none (not JSON, or not an entry). */
export function entryOf(line: Buffer | string): TranscriptEntry | null {
  let json: unknown;
  try {
    json = JSON.parse(typeof line === 'string' ? line : line.toString('utf8'));
  } catch {
    return null;
  }
  const parsed = TranscriptEntrySchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** Splits chunks into lines; a line cut by a chunk's end is carried (copied) into the next. */
class LineSplitter {
  private carry: Buffer | null = null;
  private carryOffset = 0;

  /** Calls `each` with every complete line of `chunk` (read at `position`); stops early when it returns false. */
  split(chunk: Buffer, position: number, each: (line: Line) => boolean | void): boolean {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      let line: Line = { bytes: chunk.subarray(start, end), offset: position + start };
      if (this.carry) {
        line = { bytes: Buffer.concat([this.carry, line.bytes]), offset: this.carryOffset };
        this.carry = null;
      }
      start = end + 1;
      if (each(line) === false) return false;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.carry) this.carry = Buffer.concat([this.carry, rest]);
      else {
        this.carry = Buffer.from(rest);
        this.carryOffset = position + start;
      }
    }
    return true;
  }

  /** The offset just after the last complete line: where a partial last line (if any) starts. */
  completeUpTo(end: number): number {
    return this.carry ? this.carryOffset : end;
  }
}

/**
 * Calls `each` with every complete line of the file `fd` from byte `start` to byte `end`, in order,
 * synchronously; stops when `each` returns false. Returns where the last complete line ended (a
 * partial last line is not passed on).
 */
export function scanLinesSync(fd: number, start: number, end: number, each: (line: Line) => boolean | void): number {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const splitter = new LineSplitter();
  let position = start;
  while (position < end) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, end - position), position);
    if (read === 0) break;
    if (!splitter.split(buffer.subarray(0, read), position, each)) return position + read;
    position += read;
  }
  return splitter.completeUpTo(position);
}

/** An open file: a handle, or a descriptor (opened synchronously, so with nothing renamed over it meanwhile). */
export type OpenFile = FileHandle | number;

function readAt(file: OpenFile, buffer: Buffer, length: number, position: number): Promise<number> {
  if (typeof file !== 'number') return file.read(buffer, 0, length, position).then((r) => r.bytesRead);
  return new Promise((resolve, reject) =>
    read(file, buffer, 0, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
  );
}

/** Every complete line of `file` from byte `start` to byte `end`, in order, read chunk by chunk. */
export async function* readLines(file: OpenFile, start: number, end: number): AsyncGenerator<Line> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const splitter = new LineSplitter();
  let position = start;
  while (position < end) {
    const bytesRead = await readAt(file, buffer, Math.min(buffer.length, end - position), position);
    if (bytesRead === 0) return;
    const lines: Line[] = [];
    splitter.split(buffer.subarray(0, bytesRead), position, (line) => {
      lines.push(line);
    });
    position += bytesRead;
    for (const line of lines) yield line;
  }
}

/** Every entry the lines of `file` from `start` to `end` hold, in order (lines holding none skipped). */
export async function* readEntries(file: OpenFile, start: number, end: number): AsyncGenerator<TranscriptEntry> {
  for await (const line of readLines(file, start, end)) {
    const entry = entryOf(line.bytes);
    if (entry) yield entry;
  }
}
