/**
 * A Codex rollout's lines read one at a time, whatever its size or encoding: a plain `.jsonl`
 * through forEachLine, a `.jsonl.zst` through the streaming zstd decoder with its output limited to
 * the size its export declared and never past ROLLOUT_DECODED_MAX_BYTES (io/zstd-stream.ts); no line
 * is gathered past LINE_MAX_BYTES. And what an import checks of them: JSON objects, `session_meta`
 * first naming the thread.
 */
import { forEachChunk } from '../../io/file-chunks.ts';
import { forEachLine, forEachTextLine, LineSplitter, LineTooLong } from '../../io/line-reader.ts';
import {
  bytesSource,
  forEachDecodedChunk,
  nodeZstdDecoder,
  ZstdRefused,
  type ChunkSource,
  type ZstdDecoder,
} from '../../io/zstd-stream.ts';
import { entryWithout, type LineSource, type SameEntry } from '../earlier-state.ts';

/** The most a compressed rollout may decode to: 2 GiB. */
export const ROLLOUT_DECODED_MAX_BYTES = 2 * 1024 * 1024 * 1024;

/** This Node's zstd decoder, if it has one. */
export const DEFAULT_ZSTD = nodeZstdDecoder();

/** Where a rollout's bytes are: a file, or (the earlier inline format) text or bytes in memory. */
export type RolloutBytes = { path: string } | { text: string } | { bytes: Buffer };

/**
 * The lines of the rollout in `from` (zstd when `compressed`: decoded with `decoder`, held to
 * `declared` decoded bytes when given); null when it is compressed and there is no decoder.
 */
export function rolloutLines(from: RolloutBytes, compressed: boolean, decoder: ZstdDecoder | null, declared?: number): LineSource | null {
  if (!compressed) {
    if ('text' in from) return (each) => forEachTextLine(from.text, each);
    if ('path' in from) return (each) => forEachLine(from.path, each);
    return (each) => forEachTextLine(from.bytes.toString('utf8'), each);
  }
  if (decoder === null) return null;
  const source: ChunkSource =
    'path' in from ? (each) => forEachChunk(from.path, each) : bytesSource('bytes' in from ? from.bytes : Buffer.from(from.text));
  return async (each) => {
    const lines = new LineSplitter((bytes, number) => each(bytes.toString('utf8'), number, bytes));
    await forEachDecodedChunk(source, decoder, (chunk) => lines.push(chunk), { declared, cap: ROLLOUT_DECODED_MAX_BYTES });
    return lines.end();
  };
}

/** The decoded size of the compressed rollout at `path` (read through once), or null without a decoder or when it will not decode. */
export async function decodedSize(path: string, decoder: ZstdDecoder | null): Promise<number | null> {
  if (decoder === null) return null;
  return forEachDecodedChunk(
    (each) => forEachChunk(path, each),
    decoder,
    () => undefined,
    { cap: ROLLOUT_DECODED_MAX_BYTES },
  ).catch(() => null);
}

/** A rollout's lines checked one at a time: JSON objects, `session_meta` first naming thread `id`. */
class RolloutCheck {
  private first = true;

  constructor(private readonly id: string) {}

  take(raw: string, lineNumber: number): string | null {
    if (raw.trim() === '') return null;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return `The Codex rollout is damaged: line ${lineNumber} is not JSON.`;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return `The Codex rollout is damaged: line ${lineNumber} is not a JSON object.`;
    if (this.first) {
      this.first = false;
      const line = value as Record<string, unknown>;
      if (line.type !== 'session_meta' || (line.payload as Record<string, unknown> | undefined)?.id !== this.id)
        return `The Codex rollout does not start with the session_meta of session ${this.id}.`;
    }
    return null;
  }

  finish(): string | null {
    return this.first ? `The Codex rollout does not start with the session_meta of session ${this.id}.` : null;
  }
}

/** A refusal raised from a line handler, so reading stops there. */
class Refused extends Error {}

/** Checks a rollout's `lines`; resolves to the reason it is refused (damaged, a line too long, a zstd limit passed), or null. */
export async function checkRollout(id: string, lines: LineSource): Promise<string | null> {
  const check = new RolloutCheck(id);
  try {
    await lines((raw, number) => {
      const refused = check.take(raw, number);
      if (refused !== null) throw new Refused(refused);
    });
  } catch (error) {
    if (error instanceof Refused) return error.message;
    if (error instanceof LineTooLong) return `The Codex rollout is damaged: ${error.message}.`;
    if (error instanceof ZstdRefused) return `The Codex rollout is refused: ${error.message}.`;
    throw error;
  }
  return check.finish();
}

/** Two rollout lines are one entry when they are the same JSON (Codex only appends; an import rewrites nothing). */
export const sameRolloutEntry: SameEntry = (mine, theirs) => {
  if (mine === theirs) return true;
  const entry = entryWithout(mine, []);
  return entry !== null && entry === entryWithout(theirs, []);
};
