/** Serving a blob: a client that leaves part-way through closes the body's file at once. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import type { Device } from '../../shared/api/devices.ts';
import { BlobFiles } from '../blobs/blob-files.ts';
import type { Deps } from '../service/context.ts';
import { sendBlob } from './blob-routes.ts';

let dir: string;
let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

it('closes the body of a download the client leaves part-way through', async () => {
  dir = mkdtempSync(join(tmpdir(), 'baton-blob-route-'));
  const blobs = new BlobFiles(dir);
  const body = Buffer.alloc(8 * 1024 * 1024, 7);
  const digest = createHash('sha256').update(body).digest('hex');
  const upload = blobs.begin();
  await upload.write(body);
  await upload.commit(digest, body.length);
  // The body served, to see when it is closed.
  let served: Readable | undefined;
  const deps = {
    store: { getBlob: async () => ({ accountId: 'acct', digest, size: body.length, createdAt: 0 }) },
    blobs: {
      open: async (d: string, size: number) => {
        served = await blobs.open(d, size);
        return served;
      },
    },
  } as unknown as Deps;
  server = createServer((_req, res) => void sendBlob(deps, { accountId: 'acct' } as Device, digest, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const firstChunk = new Promise<void>((resolve) => {
    const req = get(`http://127.0.0.1:${port}/`, (res) => res.once('data', () => (req.destroy(), resolve())));
  });
  await firstChunk;
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 5000);
    if (served!.destroyed) return resolve(true);
    served!.once('close', () => (clearTimeout(timer), resolve(true)));
  });
  expect(closed).toBe(true);
});
