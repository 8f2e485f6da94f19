/**
 * Authenticate before reading bodies: the signature covers the declared size and digest, so a forged
 * or over-size upload is refused from its headers with nothing read or written, a body that does not
 * match its digest is refused and discarded, and uploads in progress are capped. Raw sockets against
 * an in-process backend on a real data folder.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../backend.ts';
import { createTestAccount, joinTestDevice, newTestDevice, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { rawConnect, signedHead } from '../../dev-env/raw-http.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

const MiB = 1024 * 1024;
let storage: TestStorage;
let backend: RunningBackend;
let laptop: TestDevice;
let desk: TestDevice;
let tablet: TestDevice;

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-auth-first');
    backend = await startBackend({
      ...storage.options,
      limits: { maxBlobBytes: 8 * MiB, maxUploadsPerDevice: 1, maxUploadsPerAccount: 2 },
    });
    laptop = newTestDevice(backend.url, 'laptop');
    desk = newTestDevice(backend.url, 'desk');
    tablet = newTestDevice(backend.url, 'tablet');
    await createTestAccount(laptop);
    await joinTestDevice(laptop, desk);
    await joinTestDevice(laptop, tablet);
  });

  afterAll(async () => {
    await backend.close();
    storage.cleanup();
  });

  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const status = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const code = (text: string) => (JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { code: string } }).error.code;

  describe('before the body is read', () => {
    it('refuses a blob PUT with a forged signature from its headers: no byte read, nothing written, connection closed', async () => {
      const body = Buffer.alloc(4 * MiB, 1);
      const digest = sha(body);
      const conn = await rawConnect(backend.url);
      conn.write(signedHead(laptop.signer, { method: 'PUT', path: `/v1/blobs/${digest}`, size: body.length, sha256: digest, forge: true }));
      const answer = await conn.answer(/\r\n\r\n\{.*\}/s);
      expect([status(answer), code(answer)]).toEqual([401, 'unauthorized']);
      expect(answer).toMatch(/connection: close/i);
      await conn.closed;
      expect(await storage.partialBlobs()).toBe(0);
      expect((await laptop.client.getBlob(digest)).ok).toBe(false);
    });

    it('refuses a 1 GiB body with 413 from its Content-Length, signed or not, without reading it', async () => {
      for (const forge of [false, true]) {
        const conn = await rawConnect(backend.url);
        const started = Date.now();
        conn.write(
          signedHead(laptop.signer, {
            method: 'PUT',
            path: `/v1/blobs/${'a'.repeat(64)}`,
            size: 1024 * MiB,
            sha256: 'a'.repeat(64),
            forge,
          }),
        );
        const answer = await conn.answer(/\r\n\r\n\{.*\}/s);
        expect([status(answer), code(answer)]).toEqual([413, 'body_too_large']);
        await conn.closed;
        expect(Date.now() - started).toBeLessThan(2000);
      }
      const json = await rawConnect(backend.url);
      json.write(signedHead(laptop.signer, { method: 'POST', path: '/v1/sessions', size: 1024 * MiB, sha256: 'b'.repeat(64) }));
      expect(status(await json.answer())).toBe(413);
      expect(await storage.partialBlobs()).toBe(0);
    });

    it('refuses a blob declared with another digest than its address before reading it', async () => {
      const body = Buffer.from('checkpoint bytes');
      const conn = await rawConnect(backend.url);
      conn.write(signedHead(laptop.signer, { method: 'PUT', path: `/v1/blobs/${'c'.repeat(64)}`, size: body.length, sha256: sha(body) }));
      const answer = await conn.answer(/\r\n\r\n\{.*\}/s);
      expect([status(answer), code(answer)]).toEqual([422, 'digest_mismatch']);
    });

    it('refuses a chunked body, whose size cannot be signed, with 411', async () => {
      const conn = await rawConnect(backend.url);
      const head = signedHead(laptop.signer, { method: 'POST', path: '/v1/sessions', size: 0, sha256: sha(Buffer.alloc(0)) });
      conn.write(head.replace('content-length: 0', 'transfer-encoding: chunked'));
      const answer = await conn.answer(/\r\n\r\n\{.*\}/s);
      expect([status(answer), code(answer)]).toEqual([411, 'length_required']);
    });
  });

  describe('while the body is read', () => {
    it('refuses and discards a body that does not hash to the digest it was signed with', async () => {
      const declared = Buffer.alloc(2 * MiB, 2);
      const sent = Buffer.alloc(2 * MiB, 3);
      const digest = sha(declared);
      const conn = await rawConnect(backend.url);
      conn.write(signedHead(laptop.signer, { method: 'PUT', path: `/v1/blobs/${digest}`, size: declared.length, sha256: digest }));
      conn.write(sent);
      const answer = await conn.answer(/\r\n\r\n\{.*\}/s);
      expect([status(answer), code(answer)]).toEqual([422, 'digest_mismatch']);
      expect(await storage.partialBlobs()).toBe(0);
      expect((await laptop.client.getBlob(digest)).ok).toBe(false);
      const json = Buffer.from(JSON.stringify({ sessionId: 'session-from-a-swapped-body', sealedMeta: 'AA' }));
      const swapped = Buffer.from(JSON.stringify({ sessionId: 'session-from-a-swapped-bodY', sealedMeta: 'AA' }));
      const post = await rawConnect(backend.url);
      post.write(
        signedHead(laptop.signer, { method: 'POST', path: '/v1/sessions', size: json.length, sha256: sha(json) }) + swapped.toString(),
      );
      const refused = await post.answer(/\r\n\r\n\{.*\}/s);
      expect([status(refused), code(refused)]).toEqual([422, 'digest_mismatch']);
      const sessions = await laptop.client.call('listSessions');
      expect(sessions.ok && sessions.value.sessions).toEqual([]);
    });
  });

  describe('concurrent uploads', () => {
    it('caps uploads in progress per device and per account with 429 too_many_uploads, and frees the slot when one ends', async () => {
      const body = Buffer.alloc(1 * MiB, 4);
      const digest = sha(body);
      const open = async (device: TestDevice) => {
        const conn = await rawConnect(backend.url);
        conn.write(signedHead(device.signer, { method: 'PUT', path: `/v1/blobs/${digest}`, size: body.length, sha256: digest }));
        conn.write(body.subarray(0, 1000));
        return conn;
      };
      const first = await open(laptop);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const sameDevice = await laptop.client.putBlob(digest, body);
      expect(!sameDevice.ok && [sameDevice.status, sameDevice.code, sameDevice.details]).toEqual([
        429,
        'too_many_uploads',
        { perDevice: 1, perAccount: 2 },
      ]);
      const second = await open(desk);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const accountFull = await tablet.client.putBlob(digest, body);
      expect(!accountFull.ok && accountFull.code).toBe('too_many_uploads');
      first.write(body.subarray(1000));
      expect(status(await first.answer(/\r\n\r\n\{.*\}/s))).toBe(200);
      second.socket.destroy();
      await expect.poll(async () => (await tablet.client.putBlob(digest, body)).ok).toBe(true);
    });
  });
});
