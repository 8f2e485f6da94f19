/**
 * Content-addressed blob bodies as files: streamed to a temp file, fsynced, then renamed under their
 * digest. Opening, closing and renaming are done on this thread (metadata work of microseconds); the
 * writes and the fsyncs go through the thread pool. A round trip there costs two thread wake-ups, and
 * a small body's upload, which a move waits for, was a chain of ten of them. An upload's rename and
 * its record, and a removal's check and unlink, each hold their digest, so a removal never takes a
 * body an upload is recording (collection: service/collector.ts).
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
import { open, opendir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { hashedUpload, type BlobStore, type BlobUpload, type RemovalCheck } from './blob-store.ts';

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

/** A stored body's file name: its digest. */
const DIGEST_FILE = /^[0-9a-f]{64}$/;

/** Bodies up to this size are read whole on the calling thread (see `open`). */
export const SMALL_BODY_BYTES = 256 * 1024;

/** Blob bodies under `dir` (one file per digest; bodies in progress under `dir/tmp`). */
export class BlobFiles implements BlobStore {
  private readonly tmpDir: string;
  /** Per digest, the work holding it last: an upload's rename and record, or a removal. */
  private readonly held = new Map<string, Promise<void>>();

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
    await this.syncFolder();
  }

  /** Removes the bodies of `digests` that `check` finds unrecorded, holding each digest from the check to the unlink. */
  async remove(digests: string[], check: RemovalCheck): Promise<string[]> {
    return this.holding(digests, async () => {
      const unrecorded = await check.unrecorded(digests);
      await Promise.all(unrecorded.map((digest) => rm(this.path(digest), { force: true })));
      // On disk before their queue entries go: a removal lost in a crash is looked at again.
      if (unrecorded.length > 0) await this.syncFolder();
      return digests;
    });
  }

  /** The digests of the bodies in the folder, 500 at a time. */
  async *stored(): AsyncIterable<string[]> {
    const batch: string[] = [];
    for await (const entry of await opendir(this.dir)) {
      if (!entry.isFile() || !DIGEST_FILE.test(entry.name)) continue;
      batch.push(entry.name);
      if (batch.length === 500) yield batch.splice(0);
    }
    if (batch.length > 0) yield batch;
  }

  /** Runs `work` once no other work holds any of `digests`, holding them until it ends. */
  private async holding<T>(digests: string[], work: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    // Taken all at once, on this thread: every holder queues behind the ones before it, so none waits in a circle.
    const before = [...new Set(digests)].map((digest) => {
      const last = this.held.get(digest);
      this.held.set(digest, mine);
      return last;
    });
    try {
      await Promise.all(before);
      return await work();
    } finally {
      release();
      for (const digest of digests) if (this.held.get(digest) === mine) this.held.delete(digest);
    }
  }

  private async syncFolder(): Promise<void> {
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
      commit: async (sha256, size, record) => {
        await temp.close();
        await this.holding([sha256], async () => {
          await this.commit({ tempPath: temp.tempPath, sha256, size });
          await record?.();
        });
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
