/** Content-addressed blob bodies as files: streamed to a temp file while hashed, fsynced, then renamed. */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, type ReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fail, ok, type Result } from '../../shared/errors.ts';

export interface ReceivedBlob {
  tempPath: string;
  sha256: string;
  size: number;
}

/** Blob bodies under `dir` (one file per digest). */
export class BlobFiles {
  private readonly tmpDir: string;

  constructor(
    private readonly dir: string,
    readonly maxBytes: number,
  ) {
    this.tmpDir = join(dir, 'tmp');
    mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Streams `body` into a temp file, hashing it; refuses (and drains) a body over the size limit. */
  receive(body: Readable): Promise<Result<ReceivedBlob, 'body_too_large'>> {
    const tempPath = join(this.tmpDir, `${randomBytes(12).toString('hex')}.part`);
    const hash = createHash('sha256');
    const out = createWriteStream(tempPath);
    let size = 0;
    let tooLarge = false;
    return new Promise((resolve, reject) => {
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (tooLarge) {
          if (size > this.maxBytes * 4) body.destroy();
          return;
        }
        if (size > this.maxBytes) {
          tooLarge = true;
          out.destroy();
          return;
        }
        hash.update(chunk);
        if (!out.write(chunk)) {
          body.pause();
          out.once('drain', () => body.resume());
        }
      });
      const finish = () => {
        if (tooLarge) {
          void rm(tempPath, { force: true }).then(() =>
            resolve(fail('body_too_large', `the blob is larger than ${this.maxBytes} bytes`, { limit: this.maxBytes })),
          );
          return;
        }
        out.end(() => resolve(ok({ tempPath, sha256: hash.digest('hex'), size })));
      };
      body.on('end', finish);
      body.on('close', () => {
        if (!body.readableEnded) {
          out.destroy();
          void rm(tempPath, { force: true });
          if (tooLarge) finish();
          else reject(new Error('the request body was cut off'));
        }
      });
      body.on('error', () => undefined);
      out.on('error', (error) => {
        if (!tooLarge) reject(error);
      });
    });
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

  /** Drops a received body that was refused. */
  async discard(received: ReceivedBlob): Promise<void> {
    await rm(received.tempPath, { force: true });
  }

  /** A stream of the stored body of `digest`. */
  read(digest: string): ReadStream {
    return createReadStream(this.path(digest));
  }

  private path(digest: string): string {
    return join(this.dir, digest);
  }
}
