/**
 * A checkpoint's way from one device's disk to the other's, never held whole:
 *
 *   source  provider files + transcript → body (checkpoint-writer.ts) → seal → SHA-256 + sealed file
 *           → upload streamed from the file, its digest declared up front
 *   target  download → SHA-256 and unseal as the bytes arrive → body read (checkpoint-reader.ts) with
 *           the provider's files written into a private staging folder
 *
 * The target hands nothing on before every check passed, in this order: the body arrived whole,
 * its digest and size are the handoff's, the envelope's tag authenticates it (so a tampered or
 * misplaced body fails here, before any provider call), and it reads as this handoff's checkpoint.
 * A body that fails any of them is removed from the staging folder.
 */
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { CheckpointRef, Handoff } from '../../shared/api/handoffs.ts';
import { fail, ok, type Failure, type Result } from '../../shared/errors.ts';
import type { StreamSealer } from '../crypto/envelope-stream.ts';
import { SpillWriter } from '../io/spill-writer.ts';
import type { BackendPort, BlobFile } from '../ports/backend.ts';
import type { SealPort, UnsealFailureCode } from '../ports/seal.ts';
import type { Checkpoint } from './checkpoint.ts';
import { CheckpointReader, type StagePart } from './checkpoint-reader.ts';
import { writeCheckpoint } from './checkpoint-writer.ts';

/** A sealed checkpoint up to this size is held in memory and sent in one request; a larger one goes through a file. */
export const CHECKPOINT_MEMORY_BYTES = 1024 * 1024;

/** A sealed checkpoint: its size and digest, and its bytes when they stayed in memory (else they are in the file). */
export interface SealedCheckpoint extends BlobFile {
  /** The sealed bytes in order; null when they were written to `path` instead. */
  chunks: Buffer[] | null;
}

/**
 * Seals `checkpoint` as its body is written, hashing the envelope on the way: held in memory up to
 * `memoryLimit` bytes, else written to the file `path` (made only then); `onPart` hears the provider
 * files' bytes as they go in. Resolves with what to upload.
 */
export async function sealCheckpoint(
  sealer: StreamSealer,
  checkpoint: Checkpoint,
  path: string,
  memoryLimit: number,
  onPart?: (doneBytes: number, totalBytes: number) => void,
): Promise<SealedCheckpoint> {
  const out = new SpillWriter(path, memoryLimit);
  const hash = createHash('sha256');
  const put = async (bytes: Buffer) => {
    hash.update(bytes);
    await out.write(bytes);
  };
  let chunks: Buffer[] | null;
  try {
    await put(sealer.head);
    await writeCheckpoint(checkpoint, (chunk) => put(sealer.update(chunk)), onPart);
    await put(sealer.final());
  } finally {
    chunks = await out.close();
  }
  return { path, size: out.size, sha256: hash.digest('hex'), chunks };
}

/**
 * Uploads `sealed`: in one request from memory, else streamed from its file. `progress` hears the
 * bytes sent: 0 first, then as the file goes up, and the whole size once the store has it.
 */
export async function uploadSealed(
  backend: Pick<BackendPort, 'putBlob' | 'putBlobFile'>,
  sealed: SealedCheckpoint,
  progress: (doneBytes: number) => void,
): Promise<Result<CheckpointRef>> {
  progress(0);
  if (!sealed.chunks) return backend.putBlobFile(sealed, progress);
  const put = await backend.putBlob(sealed.sha256, sealed.chunks);
  if (put.ok) progress(sealed.size);
  return put;
}

/** Seals `checkpoint` into the file `path` (see sealCheckpoint), never holding it in memory. */
export async function sealCheckpointToFile(
  sealer: StreamSealer,
  checkpoint: Checkpoint,
  path: string,
  onPart?: (doneBytes: number, totalBytes: number) => void,
): Promise<BlobFile> {
  const { chunks: _none, ...file } = await sealCheckpoint(sealer, checkpoint, path, -1, onPart);
  return file;
}

/** A received checkpoint, and how to remove what it staged once it is no longer needed. */
export interface ReceivedCheckpoint {
  checkpoint: Checkpoint;
  /** The folder its provider files were written to. */
  stagingDir: string;
}

export type ReceiveCode = 'checkpoint_missing' | 'digest_mismatch' | UnsealFailureCode | 'malformed_checkpoint';

/**
 * Downloads the handoff's checkpoint and checks, unseals and reads it in one pass into
 * `stagingDir` (see the file header), each provider file through `stage` when it gives a rewriter;
 * `onProgress` hears the bytes received of the total. A
 * download that fails for another reason than a missing body throws (the step is retried).
 */
export async function receiveCheckpoint(
  deps: { backend: Pick<BackendPort, 'getBlobTo'>; seal: Pick<SealPort, 'startCheckpointOpen'> },
  handoff: Handoff,
  stagingDir: string,
  onProgress?: (doneBytes: number, totalBytes: number) => void,
  stage?: StagePart,
): Promise<Result<ReceivedCheckpoint, ReceiveCode>> {
  if (!handoff.checkpoint) return fail('checkpoint_missing', 'The handoff carries no checkpoint.');
  const { digest, size } = handoff.checkpoint;
  // What an earlier attempt left there is not this attempt's: removed while the download starts,
  // and gone before a byte is staged.
  const cleared = rm(stagingDir, { recursive: true, force: true });
  cleared.catch(() => undefined);
  const hash = createHash('sha256');
  const opener = deps.seal.startCheckpointOpen(handoff.sessionId, handoff.id, size);
  const reader = new CheckpointReader(stagingDir, handoff.sessionId, handoff.id, stage);
  let received = 0;
  let unsealFailure: Failure<UnsealFailureCode> | null = null;
  const discard = async () => {
    await cleared.catch(() => undefined);
    await reader.discard();
  };
  const refuse = async <C extends ReceiveCode>(failure: Failure<C>): Promise<Failure<C>> => {
    await discard();
    return failure;
  };
  let got;
  try {
    got = await deps.backend.getBlobTo(
      digest,
      async (chunk) => {
        received += chunk.length;
        hash.update(chunk);
        // Past the declared size nothing is read on: the digest check below refuses the body.
        if (unsealFailure !== null || received > size) return;
        const plain = opener.update(chunk);
        if (!plain.ok) unsealFailure = plain;
        else {
          await cleared;
          await reader.push(plain.value);
        }
      },
      (done) => onProgress?.(done, size),
    );
    await cleared;
  } catch (error) {
    await discard();
    throw error;
  }
  if (!got.ok) {
    await discard();
    if (got.code === 'not_found') return fail('checkpoint_missing', 'The checkpoint body is not in the store.');
    throw new Error(`checkpoint download failed: ${got.code} ${got.message}`);
  }
  if (received !== size || hash.digest('hex') !== digest) {
    return refuse(fail('digest_mismatch', 'The checkpoint body does not match its content address.'));
  }
  if (unsealFailure !== null) return refuse(unsealFailure);
  const opened = opener.final();
  if (!opened.ok) return refuse(opened);
  const read = await reader.end();
  if (!read.ok) return refuse(read);
  return ok({ checkpoint: read.value, stagingDir });
}
