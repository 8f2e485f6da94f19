/** Content-addressed blob bodies as files: streamed to a temp file, fsynced, then renamed under their digest. */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, readdirSync, rmSync, type ReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
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
  /** Flushes and closes the file. */
  close(): Promise<void>;
  /** Closes and removes the file (a refused or cut-off body). */
  discard(): Promise<void>;
}

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
    const out = createWriteStream(tempPath);
    let failure: Error | undefined;
    out.on('error', (error) => (failure = error));
    return {
      tempPath,
      write(chunk) {
        if (failure) return Promise.reject(failure);
        if (out.write(chunk)) return undefined;
        return once(out, 'drain').then(() => undefined);
      },
      close: () => new Promise((resolve, reject) => out.end(() => (failure ? reject(failure) : resolve()))),
      async discard() {
        out.destroy();
        await rm(tempPath, { force: true });
      },
    };
  }

  /** Makes a received body durable under its digest: fsync, rename, fsync the folder. */
  async commit(received: ReceivedBlob): Promise<void> {
    const file = await open(received.tempPath, 'r+');
    try {
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(received.tempPath, this.path(received.sha256));
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
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
   */
  async open(digest: string): Promise<Readable | undefined> {
    const file = await open(this.path(digest), 'r').catch(() => undefined);
    return file?.createReadStream();
  }

  /** Cut-off bodies are dropped when the folder is opened (one process owns it): nothing to do while running. */
  async prune(): Promise<void> {}

  private path(digest: string): string {
    return join(this.dir, digest);
  }
}
