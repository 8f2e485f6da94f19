/** PUT and GET of content-addressed blobs: streamed, hashed, size-limited, scoped to the account. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Device } from '../../shared/api/devices.ts';
import { Sha256Hex } from '../../shared/api/common.ts';
import type { Deps } from '../service/context.ts';
import type { ReceivedBlob } from '../blobs/blob-files.ts';
import { sendError, sendJson } from './respond.ts';

/** Receives a blob body into a temp file (hashing it); the caller authenticates with the hash before `storeBlob`. */
export async function receiveBlob(deps: Deps, req: IncomingMessage, res: ServerResponse): Promise<ReceivedBlob | undefined> {
  const received = await deps.blobs.receive(req);
  if (received.ok) return received.value;
  sendError(res, received.code, received.message, received.details);
  return undefined;
}

/** Keeps a received body under its digest if the hash matches the address; answers {digest, size}. */
export async function storeBlob(deps: Deps, caller: Device, digest: string, received: ReceivedBlob, res: ServerResponse): Promise<void> {
  if (!Sha256Hex.safeParse(digest).success || received.sha256 !== digest) {
    await deps.blobs.discard(received);
    return sendError(res, 'digest_mismatch', 'the body does not hash to the address it was put at', { digest: received.sha256 });
  }
  await deps.blobs.commit(received);
  const record = await deps.store.putBlob({ accountId: caller.accountId, digest, size: received.size, createdAt: deps.clock() });
  sendJson(res, 200, { digest: record.digest, size: record.size });
}

/** Streams a blob of the caller's account back (another account's blob does not exist). */
export async function sendBlob(deps: Deps, caller: Device, digest: string, res: ServerResponse): Promise<void> {
  const record = Sha256Hex.safeParse(digest).success ? await deps.store.getBlob(caller.accountId, digest) : undefined;
  if (!record) return sendError(res, 'not_found', 'no such blob');
  const stream = deps.blobs.read(digest);
  stream.once('open', () => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': record.size, 'cache-control': 'no-store' });
    stream.pipe(res);
  });
  stream.once('error', () => {
    if (res.headersSent) res.destroy();
    else sendError(res, 'not_found', 'the blob body is missing');
  });
}
