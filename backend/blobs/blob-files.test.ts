/**
 * Blob bodies on disk: written to a temp file, kept under their digest, dropped when refused; and both
 * blob stores (files, PostgreSQL chunks) behind one interface, digest-checked on write and read.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, testStorage, type StoreKindName, type TestStorage } from '../../dev-env/store-kinds.ts';
import { openPostgresStore } from '../store/postgres/postgres-store.ts';
import { BlobFiles } from './blob-files.ts';
import type { BlobStore } from './blob-store.ts';
import { BLOB_CHUNK_BYTES, PostgresBlobs } from './postgres-blobs.ts';

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

/** Both blob stores behind the interface: a fresh folder, or a fresh database with the store's schema. */
async function blobStore(kind: StoreKindName): Promise<{ blobs: BlobStore; storage: TestStorage; close(): Promise<void> }> {
  const storage = await testStorage(kind, 'baton-blob-store');
  if ('dataDir' in storage.options) {
    return { blobs: new BlobFiles(join(storage.options.dataDir, 'blobs')), storage, close: async () => storage.cleanup() };
  }
  const opened = await openPostgresStore(storage.options.database);
  if (!opened.ok) throw new Error(opened.message);
  const store = opened.value;
  return { blobs: new PostgresBlobs({ pool: store.pool, quick: store.quick, clock: Date.now }), storage, close: async () => store.close() };
}

const readAll = async (body: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(STORE_KINDS)('the %s blob store', (kind) => {
  it('keeps a body of several chunks under its digest, streams it back whole, and keeps one copy of a body uploaded twice', async () => {
    const { blobs, storage, close } = await blobStore(kind);
    try {
      const body = randomBytes(BLOB_CHUNK_BYTES * 2 + 12345);
      for (let copy = 0; copy < 2; copy++) {
        const upload = blobs.begin();
        for (let at = 0; at < body.length; at += 64 * 1024) await upload.write(body.subarray(at, at + 64 * 1024));
        await upload.commit(sha(body), body.length);
      }
      expect(await readAll((await blobs.open(sha(body), body.length))!)).toEqual(body);
      expect(await blobs.open('0'.repeat(64), body.length)).toBeUndefined();
      expect(await storage.partialBlobs()).toBe(0);
      if (kind === 'postgres') expect((await storage.rows('SELECT count(*) AS n FROM blob_chunks'))[0]!.n).toBe('3');
      // A small body (a small move's checkpoint) reads back the same, and a missing one is none.
      const small = randomBytes(4000);
      const upload = blobs.begin();
      await upload.write(small);
      await upload.commit(sha(small), small.length);
      expect(await readAll((await blobs.open(sha(small), small.length))!)).toEqual(small);
      expect(await blobs.open('1'.repeat(64), small.length)).toBeUndefined();
    } finally {
      await close();
    }
    // Two bodies of three chunks, each written through the store's durable path in 64 KiB pieces:
    // about 10 s on an idle machine, and more than the default 30 s on a busy one.
  }, 120_000);

  it('refuses to commit bytes that do not hash to the digest, keeping nothing', async () => {
    const { blobs, storage, close } = await blobStore(kind);
    try {
      const upload = blobs.begin();
      await upload.write(randomBytes(BLOB_CHUNK_BYTES + 1));
      await expect(upload.commit('a'.repeat(64), BLOB_CHUNK_BYTES + 1)).rejects.toThrow(/hashes to/);
      expect(await blobs.open('a'.repeat(64), BLOB_CHUNK_BYTES + 1)).toBeUndefined();
      expect(await storage.partialBlobs()).toBe(0);
    } finally {
      await close();
    }
  });
});

it('drops PostgreSQL uploads left untouched (their instance died mid-body) and keeps committed ones', async () => {
  const { blobs, storage, close } = await blobStore('postgres');
  try {
    const cut = blobs.begin();
    await cut.write(randomBytes(BLOB_CHUNK_BYTES + 10));
    expect(await storage.partialBlobs()).toBe(2);
    const kept = randomBytes(10);
    const done = blobs.begin();
    await done.write(kept);
    await done.commit(sha(kept), kept.length);
    await blobs.prune(Date.now() + 60 * 60_000);
    expect(await storage.partialBlobs()).toBe(0);
    expect(await readAll((await blobs.open(sha(kept), kept.length))!)).toEqual(kept);
  } finally {
    await close();
  }
});

it('fails the read of a PostgreSQL-stored body that no longer hashes to its digest, before its last bytes', async () => {
  const { blobs, storage, close } = await blobStore('postgres');
  try {
    const body = randomBytes(3000);
    const upload = blobs.begin();
    await upload.write(body);
    await upload.commit(sha(body), body.length);
    if ('dataDir' in storage.options) writeFileSync(join(storage.options.dataDir, 'blobs', sha(body)), Buffer.alloc(3000, 1));
    else await storage.rows("UPDATE blob_chunks SET data = decode(repeat('01', 3000), 'hex')");
    const received: Buffer[] = [];
    const reading = (async () => {
      for await (const chunk of (await blobs.open(sha(body), body.length))!) received.push(chunk as Buffer);
    })();
    await expect(reading).rejects.toThrow(/damaged/);
    expect(Buffer.concat(received).length).toBeLessThan(body.length);
  } finally {
    await close();
  }
});
