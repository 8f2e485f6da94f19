/**
 * Content-addressed blob bodies as files: streamed to a temp file, fsynced, then renamed under their
 * digest. Opening, closing and renaming are done on this thread (metadata work of microseconds); the
 * writes and the fsyncs go through the thread pool. A round trip there costs two thread wake-ups, and
 * a small body's upload, which a move waits for, was a chain of ten of them.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  write,
  fsync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type ReadStream,
} from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { hashedUpload, type BlobStore, type BlobUpload } from './blob-store.ts';

/** A body received whole into a temp file, already checked against its digest. */
export interface ReceivedBlob {
  tempPath: string;
  sha256: string;
  size: number;
}

/** A temp file a body is being written into. */
export interface TempBlob {
  readonly tempPath: string;
  /** Writes a chunk; resolves once the file can take more (undefined when it can now). */
  write(chunk: Buffer): Promise<void> | undefined;
  /** fsyncs and closes the file. */
  close(): Promise<void>;
  /** Closes and removes the file (a refused or cut-off body). */
  discard(): Promise<void>;
}

const fsyncFd = promisify(fsync);
const writeFd = promisify(write);

/** Bodies up to this size are read whole on the calling thread (see `open`). */
export const SMALL_BODY_BYTES = 256 * 1024;

/** Blob bodies under `dir` (one file per digest; bodies in progress under `dir/tmp`). */
export class BlobFiles implements BlobStore {
  private readonly tmpDir: string;

  constructor(private readonly dir: string) {
    this.tmpDir = join(dir, 'tmp');
    mkdirSync(this.tmpDir, { recursive: true });
    // Bodies cut off by a crash are never committed: start with an empty temp folder.
    for (const name of readdirSync(this.tmpDir)) rmSync(join(this.tmpDir, name), { force: true });
  }

  /** Opens a new temp file for a body about to be read. */
  createTemp(): TempBlob {
    const tempPath = join(this.tmpDir, `${randomBytes(12).toString('hex')}.part`);
    const fd = openSync(tempPath, 'w', 0o600);
    let fdOpen = true;
    const closeFd = () => {
      if (fdOpen) closeSync(fd);
      fdOpen = false;
    };
    // Writes run one after another on this chain, which never rejects: a failure is kept for the next
    // call. The file is closed only after the last of them (a closed descriptor's number is reused).
    let writing: Promise<void> = Promise.resolve();
    let failure: Error | undefined;
    let inFlight = 0;
    const failed = () => (failure ? Promise.reject(failure) : Promise.resolve());
    return {
      tempPath,
      write(chunk) {
        if (failure) return Promise.reject(failure);
        const idle = inFlight === 0;
        inFlight += 1;
        writing = writing.then(async () => {
          try {
            for (let at = 0; at < chunk.length && !failure;) at += (await writeFd(fd, chunk, at, chunk.length - at)).bytesWritten;
          } catch (error) {
            failure = error as Error;
          } finally {
            inFlight -= 1;
          }
        });
        // With none in progress the file can take this one now; behind another, the caller waits.
        return idle ? undefined : writing.then(failed);
      },
      async close() {
        await writing.then(failed);
        try {
          await fsyncFd(fd);
        } finally {
          closeFd();
        }
      },
      async discard() {
        await writing;
        closeFd();
        await rm(tempPath, { force: true });
      },
    };
  }

  /** Keeps a received body (closed, so fsynced) under its digest: renamed, then the folder fsynced. */
  async commit(received: ReceivedBlob): Promise<void> {
    renameSync(received.tempPath, this.path(received.sha256));
    const dir = openSync(this.dir, 'r');
    try {
      await fsyncFd(dir);
    } finally {
      closeSync(dir);
    }
  }

  /** A stream of the stored body of `digest`. */
  read(digest: string): ReadStream {
    return createReadStream(this.path(digest));
  }

  /** Receives a body into a temp file, renamed under its digest on commit once its bytes hash to it. */
  begin(): BlobUpload {
    const temp = this.createTemp();
    return hashedUpload({
      write: (chunk) => temp.write(chunk),
      commit: async (sha256, size) => {
        await temp.close();
        await this.commit({ tempPath: temp.tempPath, sha256, size });
      },
      discard: () => temp.discard(),
    });
  }

  /**
   * The stored body of `digest` as the file holds it; undefined when there is no such file. A file
   * damaged on disk is served as it is: the device checks the digest before it unseals anything and
   * ends the move with its reason (a cut stream would only look like a network failure to retry).
   * A body of at most SMALL_BODY_BYTES (its record's `size`) is read at once on this thread: a small
   * checkpoint, which a move waits for, is then not a chain of thread-pool round trips.
   */
  async open(digest: string, size: number): Promise<Readable | undefined> {
    if (size <= SMALL_BODY_BYTES) {
      try {
        return Readable.from([readFileSync(this.path(digest))], { objectMode: false });
      } catch {
        return undefined;
      }
    }
    const file = await open(this.path(digest), 'r').catch(() => undefined);
    return file?.createReadStream();
  }

  /** Cut-off bodies are dropped when the folder is opened (one process owns it): nothing to do while running. */
  async prune(): Promise<void> {}

  private path(digest: string): string {
    return join(this.dir, digest);
  }
}
