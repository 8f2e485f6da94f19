/**
 * Writing a checkpoint body (format in checkpoint.ts) as a stream: the head line, one line per
 * transcript entry, then each provider file and each carried bundle as a length-prefixed part read from disk. Small pieces
 * are gathered into chunks of CHUNK_BYTES before they reach the sink (the sealer), so a long
 * transcript costs one encryption call per chunk, not per entry, while a provider file's whole
 * chunks pass through uncopied; nothing is held whole.
 */
import { CHUNK_BYTES, forEachChunk } from '../io/file-chunks.ts';
import { CARRY_FORMAT, CHECKPOINT_FORMAT, PART_LENGTH_BYTES, type Checkpoint, type CheckpointHead, type HeadResume } from './checkpoint.ts';

/** Where the body's bytes go, chunk by chunk and in order; the sink is done with a chunk when its promise settles. */
export type BodySink = (chunk: Buffer) => Promise<void>;

/** Gathers writes into one reused buffer and hands it to `sink` whenever it fills (and at `flush`). */
class Gather {
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  /** Bytes written through so far. */
  written = 0;

  constructor(private readonly sink: BodySink) {}

  async write(bytes: Uint8Array): Promise<void> {
    // A whole chunk goes through as it is, after what was gathered before it (no copy).
    if (bytes.byteLength >= this.buffer.length) {
      await this.flush();
      await this.sink(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      this.written += bytes.byteLength;
      return;
    }
    let at = 0;
    while (at < bytes.byteLength) {
      const take = Math.min(this.buffer.length - this.used, bytes.byteLength - at);
      this.buffer.set(bytes.subarray(at, at + take), this.used);
      this.used += take;
      at += take;
      if (this.used === this.buffer.length) await this.flush();
    }
    this.written += bytes.byteLength;
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    const full = this.used;
    this.used = 0;
    await this.sink(this.buffer.subarray(0, full));
  }
}

/** The head line's object: everything but the transcript, the export's files and the carried bundles by name and size. */
export function checkpointHead(checkpoint: Checkpoint): CheckpointHead {
  const { transcript, providerResume, carry, ...rest } = checkpoint;
  const resume =
    providerResume === null
      ? null
      : {
          provider: providerResume.provider,
          format: providerResume.format,
          sessionId: providerResume.sessionId,
          payload: providerResume.payload as HeadResume['payload'],
          ...(providerResume.files ? { files: providerResume.files.map(({ name, size }) => ({ name, size })) } : {}),
        };
  const carried = carry && {
    ...carry,
    repos: carry.repos.map(({ bundle, ...repo }) => ({ ...repo, bundleSize: bundle.size })),
  };
  return {
    ...rest,
    format: carried ? CARRY_FORMAT : CHECKPOINT_FORMAT,
    providerResume: resume,
    transcriptEntries: transcript.count,
    ...(carried ? { carry: carried } : {}),
  };
}

/** The files whose bytes follow the entry lines, in order: the provider's, then the carried bundles. */
function partFiles(checkpoint: Checkpoint): { path: string; size: number }[] {
  return [...(checkpoint.providerResume?.files ?? []), ...(checkpoint.carry?.repos.map((repo) => repo.bundle) ?? [])];
}

/**
 * Writes `checkpoint`'s body into `sink`: head, entries, parts. `onPart` hears the bytes of the
 * parts' files written so far (of their total). Rejects when a part's file cannot be read
 * or ends before its size, or the transcript holds fewer entries than its count; resolves with the body's length.
 */
export async function writeCheckpoint(
  checkpoint: Checkpoint,
  sink: BodySink,
  onPart?: (doneBytes: number, totalBytes: number) => void,
): Promise<number> {
  const out = new Gather(sink);
  const encoder = new TextEncoder();
  await out.write(encoder.encode(`${JSON.stringify(checkpointHead(checkpoint))}\n`));
  // JSON.stringify escapes every newline inside a string, so each entry is exactly one line. The
  // entries are read from where they are kept as they go: exactly the count the head states.
  const count = checkpoint.transcript.count;
  let entries = 0;
  if (count > 0) {
    for await (const entry of checkpoint.transcript.entries()) {
      await out.write(encoder.encode(`${JSON.stringify(entry)}\n`));
      if ((entries += 1) === count) break;
    }
  }
  if (entries < count) throw new Error(`the checkpoint's transcript ended after ${entries} of its ${count} entries`);
  const files = partFiles(checkpoint);
  const total = files.reduce((sum, file) => sum + file.size, 0);
  let done = 0;
  for (const file of files) {
    const length = Buffer.alloc(PART_LENGTH_BYTES);
    length.writeBigUInt64BE(BigInt(file.size));
    await out.write(length);
    await forEachChunk(
      file.path,
      async (chunk) => {
        await out.write(chunk);
        done += chunk.length;
        onPart?.(done, total);
      },
      { length: file.size },
    );
  }
  await out.flush();
  return out.written;
}
