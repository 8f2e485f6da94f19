/**
 * A streaming zstd decoder for the tests on a Node without zstd in node:zlib (Node 20 here; the
 * product uses node:zlib's where it exists, as Electron's does): fzstd, pure JavaScript, behind the
 * same Transform the product's decoder is. fzstd decodes whatever whole blocks it is given at once,
 * so the input is cut at block boundaries (read from the frame and block headers) and fed one block
 * at a time, waiting while the output is not read: it keeps to backpressure as node:zlib does, and a
 * bomb's RLE blocks come out 128 KiB at a time.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { Decompress } from 'fzstd';
import type { ZstdDecoder } from '../electron/io/zstd-stream.ts';

type CutState = 'frame' | 'block' | 'checksum';

/** Walks zstd frames as bytes arrive: the next piece to hand on (a frame header, a block, a checksum), taken once it is whole. */
class BlockCutter {
  private state: CutState = 'frame';
  private checksum = false;

  /** The next piece starting at `at` of `bytes` and the walk's state after it, or null when more bytes are needed to tell. */
  next(bytes: Buffer, at: number): { size: number; state: CutState; checksum: boolean } | null {
    const left = bytes.length - at;
    if (this.state === 'checksum') return { size: 4, state: 'frame', checksum: false };
    if (this.state === 'frame') {
      if (left < 5) return null;
      const magic = bytes.readUInt32LE(at);
      if (magic >= 0x184d2a50 && magic <= 0x184d2a5f)
        return left < 8 ? null : { size: 8 + bytes.readUInt32LE(at + 4), state: 'frame', checksum: false };
      const fhd = bytes[at + 4]!;
      const fcs = [0, 2, 4, 8][fhd >> 6]!;
      const single = (fhd >> 5) & 1;
      const dict = [0, 1, 2, 4][fhd & 3]!;
      return { size: 5 + (single ? 0 : 1) + dict + (single && fcs === 0 ? 1 : fcs), state: 'block', checksum: ((fhd >> 2) & 1) === 1 };
    }
    if (left < 3) return null;
    const header = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
    const last = (header & 1) === 1;
    const state: CutState = last ? (this.checksum ? 'checksum' : 'frame') : 'block';
    return { size: 3 + (((header >> 1) & 3) === 1 ? 1 : header >>> 3), state, checksum: this.checksum };
  }

  /** Moves past a piece `next` gave. */
  take(piece: { state: CutState; checksum: boolean }): void {
    this.state = piece.state;
    this.checksum = piece.checksum;
  }
}

class FzstdTransform extends Transform {
  private readonly decoder = new Decompress((chunk) => void this.push(Buffer.from(chunk)));
  private readonly cutter = new BlockCutter();
  /** The start of a piece not yet whole, gathered in one buffer kept for the stream's life (a block is at most 128 KiB). */
  private readonly pending = Buffer.allocUnsafe(256 * 1024);
  private pendingLength = 0;
  private waiting: (() => void) | null = null;

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
    done(error);
  }

  override _read(size: number): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
    super._read(size);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    void this.cut(chunk).then(() => done(), done);
  }

  /** Hands on each whole piece of what was pending and `chunk`, a piece at a time, and keeps the rest (copied: the chunk is reused). */
  private async cut(chunk: Buffer): Promise<void> {
    let at = 0;
    while (at < chunk.length) {
      if (this.pendingLength > 0) {
        // Complete the pending piece a byte range at a time (its size is known once its header is in).
        const piece = this.cutter.next(this.pending.subarray(0, this.pendingLength), 0);
        const want = piece === null ? Math.min(8, chunk.length - at) : Math.min(piece.size - this.pendingLength, chunk.length - at);
        chunk.copy(this.pending, this.pendingLength, at, at + want);
        this.pendingLength += want;
        at += want;
        const whole = this.cutter.next(this.pending.subarray(0, this.pendingLength), 0);
        if (whole !== null && whole.size <= this.pendingLength) {
          await this.feed(this.pending.subarray(0, whole.size), whole);
          this.pending.copy(this.pending, 0, whole.size, this.pendingLength);
          this.pendingLength -= whole.size;
        }
        continue;
      }
      const piece = this.cutter.next(chunk, at);
      if (piece === null || at + piece.size > chunk.length) {
        chunk.copy(this.pending, 0, at);
        this.pendingLength = chunk.length - at;
        return;
      }
      await this.feed(chunk.subarray(at, at + piece.size), piece);
      at += piece.size;
      if (this.destroyed) return;
    }
  }

  private async feed(bytes: Buffer, piece: { state: CutState; checksum: boolean }): Promise<void> {
    // fzstd keeps a frame header (it waits for a block before it reads one) and decodes a whole block at once:
    // a header is copied, a block passed as it is.
    this.decoder.push(piece.state === 'block' && bytes.length < 32 ? Buffer.from(bytes) : bytes);
    this.cutter.take(piece);
    if (this.readableLength >= this.readableHighWaterMark) await new Promise<void>((resume) => (this.waiting = resume));
  }

  override _flush(done: TransformCallback): void {
    try {
      this.decoder.push(this.pending.subarray(0, this.pendingLength), true);
      done();
    } catch (error) {
      done(error as Error);
    }
  }
}

/** fzstd as a ZstdDecoder. */
export const fzstdDecoder: ZstdDecoder = () => new FzstdTransform();
