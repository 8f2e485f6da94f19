/** PUT and GET of content-addressed blobs: authenticated before a byte is read, streamed, digest-checked, scoped to the account. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { Device } from '../../shared/api/devices.ts';
import { Sha256Hex } from '../../shared/api/common.ts';
import { fail, type ApiErrorCode, type Failure } from '../../shared/errors.ts';
import type { DeclaredBody } from '../auth/signature.ts';
import type { Deps } from '../service/context.ts';
import type { BlobRecord } from '../store/store.ts';
import { readDeclaredBody, type BodyCode, type BodyPace } from './body-reader.ts';
import type { UploadSlots } from './upload-slots.ts';
import { sendError, sendJson } from './respond.ts';

/**
 * Receives an authenticated device's blob into a temp file and keeps it under its digest. Refused
 * before reading: a body declared with another digest than its address, or one upload too many for
 * the device or account. Answers {digest, size}, or returns why not.
 */
export async function putBlob(
  deps: Deps,
  slots: UploadSlots,
  pace: BodyPace,
  req: IncomingMessage,
  res: ServerResponse,
  caller: Device,
  digest: string,
  declared: DeclaredBody,
): Promise<Failure<ApiErrorCode | BodyCode> | undefined> {
  if (!Sha256Hex.safeParse(digest).success || declared.sha256 !== digest) {
    return fail('digest_mismatch', 'the body is declared with another digest than the address it is put at', { digest: declared.sha256 });
  }
  const release = slots.take(caller.accountId, caller.id);
  if (!release) {
    return fail('too_many_uploads', 'too many uploads in progress for this device or account; retry when one ends', {
      perDevice: slots.perDevice,
      perAccount: slots.perAccount,
    });
  }
  const upload = deps.blobs.begin();
  let record: BlobRecord | undefined;
  try {
    const read = await readDeclaredBody(req, declared, pace, (chunk) => upload.write(chunk));
    if (!read.ok) {
      await upload.discard();
      return read;
    }
    // Recorded as part of the commit: a collection never removes the body between the two.
    await upload.commit(digest, declared.size, async () => {
      record = await deps.store.putBlob({ accountId: caller.accountId, digest, size: declared.size, createdAt: deps.clock() });
    });
  } catch (error) {
    await upload.discard().catch(() => undefined);
    throw error;
  } finally {
    release();
  }
  sendJson(res, 200, { digest: record!.digest, size: record!.size });
  return undefined;
}

/** Streams a blob of the caller's account back (another account's blob does not exist). */
export async function sendBlob(deps: Deps, caller: Device, digest: string, res: ServerResponse): Promise<void> {
  const record = Sha256Hex.safeParse(digest).success ? await deps.store.getBlob(caller.accountId, digest) : undefined;
  if (!record) return sendError(res, 'not_found', 'no such blob');
  const body = await deps.blobs.open(digest, record.size);
  if (!body) return sendError(res, 'not_found', 'the blob body is missing');
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': record.size, 'cache-control': 'no-store' });
  // A body that fails its digest check part-way is cut off: the client sees a short body, never wrong bytes as
  // whole. A client that leaves early closes the body (its file, or its database read) at once, where a plain
  // pipe would leave the file open until the garbage collector found it.
  pipeline(body, res, () => undefined);
}
