/**
 * zstd-compressed bytes (a Codex `.jsonl.zst` rollout) decoded as a stream with an output limit:
 * the compressed bytes go through a streaming decoder a chunk at a time, never whole, and what comes
 * out is counted as it comes — past the limit (the size the sender declared, else a hard cap)
 * decoding stops, so a small bomb cannot inflate without bound, and a stream that ends short of its
 * declared size is refused too. The decoder is node:zlib's where this Node has it (Electron's does;
 * Node 20 does not), its window capped so a frame cannot make it hold more than 8 MiB.
 */
import type { Transform } from 'node:stream';
import * as zlib from 'node:zlib';

/** Makes a streaming zstd decoder: compressed bytes written in, decoded bytes read out, with backpressure. */
export type ZstdDecoder = () => Transform;

/** The largest window (log2 bytes) a frame may ask the decoder for: 8 MiB, what zstd's levels up to 19 use. */
export const ZSTD_WINDOW_LOG_MAX = 23;

/** Hands bytes to `each` chunk by chunk (a chunk may be reused once `each` resolves): a file, or bytes in memory. */
export type ChunkSource = (each: (chunk: Buffer) => Promise<void>) => Promise<unknown>;

type ZlibWithZstd = {
  createZstdDecompress?: (options: { params: Record<number, number> }) => Transform;
  constants: Record<string, number | undefined>;
};

/** node:zlib's streaming zstd decoder with its window capped, or null where this Node has none. */
export function nodeZstdDecoder(): ZstdDecoder | null {
  const z = zlib as unknown as ZlibWithZstd;
  const windowLogMax = z.constants.ZSTD_d_windowLogMax;
  if (typeof z.createZstdDecompress !== 'function' || windowLogMax === undefined) return null;
  const create = z.createZstdDecompress;
  return () => create({ params: { [windowLogMax]: ZSTD_WINDOW_LOG_MAX } });
}

/** Why decoding was refused: it would pass its limit, ends short of its declared size, or is not zstd. */
export class ZstdRefused extends Error {}

/**
 * Decodes what `source` gives through a decoder from `decoder`, handing the decoded bytes to `each`
 * in order; at most `limit.cap` bytes, and exactly `limit.declared` when given. Resolves with the
 * decoded size; rejects with ZstdRefused (or what `each` threw).
 */
export async function forEachDecodedChunk(
  source: ChunkSource,
  decoder: ZstdDecoder,
  each: (chunk: Buffer) => void | Promise<void>,
  limit: { declared?: number; cap: number },
): Promise<number> {
  const max = Math.min(limit.declared ?? limit.cap, limit.cap);
  const stream = decoder();
  // A write the decoder never answers (destroyed mid-chunk) ends with the stream, so the source closes its file.
  const closed = new Promise<never>((_resolve, reject) => stream.once('close', () => reject(new Error('the decoder was closed'))));
  closed.catch(() => undefined);
  const write = (chunk: Buffer) =>
    Promise.race([new Promise<void>((resolve, reject) => stream.write(chunk, (error) => (error ? reject(error) : resolve()))), closed]);
  const fed = (async () => {
    await source(write);
    stream.end();
  })();
  fed.catch((error: Error) => stream.destroy(error));
  let total = 0;
  /** What `each` threw, passed on as it is (anything else the stream threw is the decoder's). */
  let handlerError: unknown = null;
  try {
    for await (const piece of stream as AsyncIterable<Buffer>) {
      total += piece.length;
      if (total > max) throw new ZstdRefused(`it decompresses to more than ${max} bytes`);
      try {
        await each(piece);
      } catch (error) {
        handlerError = error;
        throw error;
      }
    }
    await fed;
  } catch (error) {
    stream.destroy();
    await fed.catch(() => undefined);
    if (error instanceof ZstdRefused || error === handlerError) throw error;
    throw new ZstdRefused(`it does not decompress: ${(error as Error).message}`);
  }
  if (limit.declared !== undefined && total !== limit.declared) {
    throw new ZstdRefused(`it decompresses to ${total} bytes, not the ${limit.declared} it declares`);
  }
  return total;
}

/** A ChunkSource over bytes already in memory, 64 KiB at a time. */
export function bytesSource(bytes: Buffer): ChunkSource {
  return async (each) => {
    for (let at = 0; at < bytes.length; at += 65_536) await each(bytes.subarray(at, at + 65_536));
  };
}
