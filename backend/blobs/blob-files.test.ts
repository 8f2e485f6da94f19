/** Blob bodies on disk: hashed while received, kept under their digest, refused over the limit. */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BlobFiles } from './blob-files.ts';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-blobs-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('hashes a body as it arrives, keeps it under its digest and reads it back', async () => {
  const blobs = new BlobFiles(dir, 1024);
  const body = Buffer.from('sealed checkpoint bytes');
  const received = await blobs.receive(Readable.from([body.subarray(0, 5), body.subarray(5)]));
  if (!received.ok) throw new Error(received.code);
  expect([received.value.sha256, received.value.size]).toEqual([createHash('sha256').update(body).digest('hex'), body.length]);
  await blobs.commit(received.value);
  const chunks: Buffer[] = [];
  for await (const chunk of blobs.read(received.value.sha256)) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks)).toEqual(body);
  expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
});

it('refuses a body over the limit and leaves no file behind', async () => {
  const blobs = new BlobFiles(dir, 10);
  const received = await blobs.receive(Readable.from([Buffer.alloc(8), Buffer.alloc(8)]));
  expect(received).toMatchObject({ ok: false, code: 'body_too_large' });
  await expect.poll(() => readdirSync(join(dir, 'tmp'))).toEqual([]);
});

it('drops a refused body', async () => {
  const blobs = new BlobFiles(dir, 100);
  const received = await blobs.receive(Readable.from([Buffer.from('x')]));
  if (!received.ok) throw new Error(received.code);
  await blobs.discard(received.value);
  expect(existsSync(received.value.tempPath)).toBe(false);
});
