/**
 * zstd data for tests, written by hand (Node 20 has no zstd encoder, and the tests need no binary):
 * frames of raw blocks (the bytes as they are: a 400 MiB rollout is a 400 MiB file) and of RLE
 * blocks (one byte repeated: four bytes of block header and one of data give 128 KiB, a bomb).
 * Both are valid zstd (RFC 8878) that any decoder reads; the window is 1 MiB and the content size
 * is left out, as a streaming encoder writes it.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

const MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
/** Frame header descriptor 0 (no content size, no checksum, no dictionary), window descriptor 2^20. */
const FRAME_HEADER = Buffer.concat([MAGIC, Buffer.from([0x00, 10 << 3])]);
const BLOCK_MAX = 128 * 1024;

function blockHeader(type: 0 | 1, size: number, last: boolean): Buffer {
  const value = (last ? 1 : 0) | (type << 1) | (size << 3);
  return Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff]);
}

/**
 * Writes one frame of raw blocks holding the bytes `pieces` gives, in order, to the file `path`
 * (each piece is split into blocks of at most 128 KiB); resolves with the decoded size.
 */
export function writeRawZstd(path: string, pieces: Iterable<Buffer>): number {
  const fd = openSync(path, 'w');
  let total = 0;
  try {
    writeSync(fd, FRAME_HEADER);
    for (const piece of pieces) {
      for (let at = 0; at < piece.length; at += BLOCK_MAX) {
        const block = piece.subarray(at, at + BLOCK_MAX);
        writeSync(fd, Buffer.concat([blockHeader(0, block.length, false), block]));
        total += block.length;
      }
    }
    writeSync(fd, blockHeader(0, 0, true));
  } finally {
    closeSync(fd);
  }
  return total;
}

/** A frame whose `lead` is raw, then RLE blocks of spaces to `inflated` bytes in all: a few KiB that decode to gigabytes. */
export function zstdBomb(lead: Buffer, inflated: number): Buffer {
  const parts = [FRAME_HEADER, blockHeader(0, lead.length, false), lead];
  for (let left = inflated - lead.length; left > 0; left -= BLOCK_MAX) {
    const size = Math.min(BLOCK_MAX, left);
    parts.push(blockHeader(1, size, size === left), Buffer.from(' '));
  }
  return Buffer.concat(parts);
}
