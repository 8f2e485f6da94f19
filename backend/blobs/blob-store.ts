/**
 * Where blob bodies live, behind one interface: files in the data folder (blob-files.ts) or chunks in
 * PostgreSQL (postgres-blobs.ts). Bodies are streamed in and out, never held whole. An upload whose
 * bytes do not hash to its digest is refused at commit by both; PostgreSQL chunks are also checked as
 * they are read back (a damaged body fails its stream before its last bytes), while a file is served
 * as it is and the device's own digest check refuses it.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

/** A body being received. */
export interface BlobUpload {
  /** Writes a chunk; resolves once more can be taken (undefined when it can now). */
  write(chunk: Buffer): Promise<void> | undefined;
  /**
   * Makes the body durable under `digest`, then runs `record` (which puts its record) before any removal
   * of that digest can look at it; throws, keeping nothing, when the bytes written do not hash to it.
   */
  commit(digest: string, size: number, record?: () => Promise<unknown>): Promise<void>;
  /** Drops what was written (a refused or cut-off body). */
  discard(): Promise<void>;
}

/** What a removal asks before it removes a body. */
export interface RemovalCheck {
  /** Which of the digests no account has a record of (the store's answer). */
  unrecorded(digests: string[]): Promise<string[]>;
  /** A body put at or after this time is left for a later look (PostgreSQL). */
  putBefore: number;
}

export interface BlobStore {
  /** Starts receiving a body. */
  begin(): BlobUpload;
  /** A stream of the stored body of `digest` (`size` bytes, as its record says); undefined when there is none. */
  open(digest: string, size: number): Promise<Readable | undefined>;
  /** Drops uploads that were cut off and never committed (their process died). */
  prune(now: number): Promise<void>;
  /**
   * Removes the bodies among `digests` that no record names, the check and the removal one step against
   * an upload of the same digest committing and recording it meanwhile. The digests settled (removed,
   * recorded again, or with no body); the others are to be looked at again later. 'busy' when another
   * instance is removing bodies.
   */
  remove(digests: string[], check: RemovalCheck): Promise<string[] | 'busy'>;
  /**
   * The digests of the bodies stored when this process began, in batches, for a sweep after a crash
   * between a body and its record (files); none where every upload queues itself (PostgreSQL).
   */
  stored(): AsyncIterable<string[]>;
}

/** Wraps an upload so that its bytes are hashed as written and `commit` refuses another digest or size. */
export function hashedUpload(upload: BlobUpload): BlobUpload {
  const hash = createHash('sha256');
  let size = 0;
  return {
    write(chunk) {
      hash.update(chunk);
      size += chunk.length;
      return upload.write(chunk);
    },
    async commit(digest, declared, record) {
      const actual = hash.digest('hex');
      if (actual !== digest || size !== declared) {
        await upload.discard();
        throw new Error(`the blob body hashes to ${actual} (${size} bytes), not ${digest} (${declared} bytes)`);
      }
      await upload.commit(digest, declared, record);
    },
    discard: () => upload.discard(),
  };
}

/**
 * Passes `body` through, failing the stream at its end if the bytes do not hash to `digest`. The last
 * chunk is held back until the digest is checked, so a reader never receives a damaged body whole.
 */
export function checkedBody(body: Readable, digest: string): Readable {
  const hash = createHash('sha256');
  let held: Buffer | undefined;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      const previous = held;
      held = chunk;
      done(null, previous);
    },
    flush(done) {
      const actual = hash.digest('hex');
      if (actual !== digest) return done(new Error(`the stored blob ${digest} hashes to ${actual}: it is damaged`));
      done(null, held);
    },
  });
  body.once('error', (error) => check.destroy(error));
  return body.pipe(check);
}
