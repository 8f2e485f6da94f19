/** Blob bodies on disk: written to a temp file, kept under their digest, dropped when refused. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BlobFiles } from './blob-files.ts';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-blobs-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('keeps a body written in chunks under its digest and reads it back', async () => {
  const blobs = new BlobFiles(dir);
  const body = Buffer.from('sealed checkpoint bytes');
  const sha256 = createHash('sha256').update(body).digest('hex');
  const temp = blobs.createTemp();
  await temp.write(body.subarray(0, 5));
  await temp.write(body.subarray(5));
  await temp.close();
  await blobs.commit({ tempPath: temp.tempPath, sha256, size: body.length });
  const chunks: Buffer[] = [];
  for await (const chunk of blobs.read(sha256)) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks)).toEqual(body);
  expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
});

it('drops a refused body', async () => {
  const blobs = new BlobFiles(dir);
  const temp = blobs.createTemp();
  await temp.write(Buffer.from('x'));
  await temp.discard();
  expect(existsSync(temp.tempPath)).toBe(false);
});

it('starts with no partial body left from a crash', () => {
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  writeFileSync(join(dir, 'tmp', 'cut.part'), 'half a body');
  new BlobFiles(dir);
  expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
});
