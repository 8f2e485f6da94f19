/**
 * The client over TLS: a pinned self-signed backend is used like any other; a backend presenting
 * another key is refused before any request is signed or sent (the impostor sees connections, never a
 * request); an unpinned self-signed key is refused with its fingerprint; a re-pin takes effect at
 * once; a key that changes under a running client is refused on the next connection. Real HTTPS on
 * 127.0.0.1, a real in-process backend.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../../backend/backend.ts';
import { newTlsKey, selfSignedIdentity, type TlsIdentity } from '../../backend/tls/tls-identity.ts';
import { createTestAccount, newTestDevice } from '../../dev-env/sync-fixtures.ts';
import { startHttpRecorder } from '../../dev-env/http-recorder.ts';
import { startTcpRelay } from '../../dev-env/tcp-relay.ts';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { createBackendClient } from './backend-client.ts';
import { BackendTrust } from './backend-trust.ts';
import { openPushStream } from './push-stream.ts';
import type { RequestSigner } from './request-signer.ts';

const folder = tempFolders('baton-trust-');
let identity: TlsIdentity;
let other: TlsIdentity;
let backend: RunningBackend;

beforeAll(async () => {
  [identity, other] = await Promise.all([selfSignedIdentity(newTlsKey(), ['127.0.0.1']), selfSignedIdentity(newTlsKey(), ['127.0.0.1'])]);
  backend = await startBackend({ dataDir: folder(), tls: identity });
});

afterAll(async () => {
  await backend.close();
});

/** A server with `tls`'s key that counts connections and requests, answering every request 200. */
async function impostor(tls: TlsIdentity): Promise<{ url: string; connections: () => number; requests: () => number; server: Server }> {
  let connections = 0;
  let requests = 0;
  const server = createServer({ cert: tls.cert, key: tls.key }, (_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}`, connections: () => connections, requests: () => requests, server };
}

/** A call's code: 'ok', or why not ('bad_response' from an impostor means it was reached and answered). */
const codeOf = (result: { ok: true } | { ok: false; code: string }) => (result.ok ? 'ok' : result.code);

/** A signer that counts what it signs. */
function countingSigner(inner: RequestSigner): RequestSigner & { signed: number } {
  const counted = {
    deviceId: inner.deviceId,
    signed: 0,
    sign: (data: Uint8Array) => {
      counted.signed++;
      return inner.sign(data);
    },
  };
  return counted;
}

describe('a client that pinned the backend key', () => {
  it('creates an account, calls, streams blobs and opens the push stream over TLS with a self-signed key', async () => {
    expect(backend.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const device = newTestDevice(backend.url, 'laptop', undefined, [identity.fingerprint]);
    await createTestAccount(device);
    const body = Buffer.from('sealed bytes over TLS');
    const digest = createHash('sha256').update(body).digest('hex');
    expect((await device.client.putBlob(digest, body)).ok).toBe(true);
    const read = await device.client.getBlob(digest);
    expect(read.ok && Buffer.from(read.value).toString()).toBe('sealed bytes over TLS');
    const opened = await new Promise<boolean>((resolve) => {
      const close = openPushStream(device.client, () => undefined, {
        onOpen: () => {
          close();
          resolve(true);
        },
      });
    });
    expect(opened).toBe(true);
    expect(device.client.trust.view()).toEqual({ pinned: [identity.fingerprint], refused: null });
  });

  it('refuses a backend that presents another key before any request is signed or sent, saying both keys and the fix', async () => {
    const fake = await impostor(other);
    try {
      const signer = countingSigner(newTestDevice(fake.url, 'laptop').signer);
      const client = createBackendClient({ baseUrl: fake.url, signer, trust: new BackendTrust([identity.fingerprint]), attempts: 2 });
      const answer = await client.call('me');
      expect(answer).toMatchObject({ ok: false, code: 'backend_key_mismatch' });
      expect(!answer.ok && answer.message).toContain(other.fingerprint);
      expect(!answer.ok && answer.message).toContain(identity.fingerprint);
      expect(!answer.ok && answer.message).toMatch(/new invite|re-pin/);
      const stream = await client.signedFetch('GET', '/v1/stream').catch((error: Error) => error);
      expect(stream).toBeInstanceOf(Error);
      // The impostor was reached (a connection per attempt) but never sent a request; nothing was even signed.
      expect(fake.connections()).toBeGreaterThanOrEqual(2);
      expect(fake.requests()).toBe(0);
      expect(signer.signed).toBe(0);
      expect(client.trust.view().refused).toMatchObject({ url: fake.url, presented: other.fingerprint, reason: 'mismatch' });
    } finally {
      fake.server.close();
    }
  });

  it('refuses a key that changes under it on the next connection, sending nothing on it, until the pinned key is back', async () => {
    const fake = await impostor(identity);
    try {
      const client = createBackendClient({
        baseUrl: fake.url,
        signer: newTestDevice(fake.url, 'x').signer,
        trust: new BackendTrust([identity.fingerprint]),
      });
      expect(codeOf(await client.call('getKeys'))).toBe('bad_response');
      expect(fake.requests()).toBe(1);
      fake.server.setSecureContext({ cert: other.cert, key: other.key });
      fake.server.closeAllConnections();
      const again = await client.call('getKeys');
      expect(again).toMatchObject({ ok: false, code: 'backend_key_mismatch' });
      expect(fake.requests()).toBe(1);
      expect(client.trust.view().refused).toMatchObject({ presented: other.fingerprint });
      // Its pinned key back: the refusal is forgotten and requests go again.
      fake.server.setSecureContext({ cert: identity.cert, key: identity.key });
      expect(codeOf(await client.call('getKeys'))).toBe('bad_response');
      expect(fake.requests()).toBe(2);
      expect(client.trust.view().refused).toBeNull();
    } finally {
      fake.server.close();
    }
  });

  it('takes a new pin at once: the refused key is accepted after a re-pin, and the old one no longer', async () => {
    const fake = await impostor(other);
    try {
      const trust = new BackendTrust([identity.fingerprint]);
      const client = createBackendClient({ baseUrl: fake.url, signer: newTestDevice(fake.url, 'x').signer, trust, attempts: 1 });
      expect(codeOf(await client.call('getKeys'))).toBe('backend_key_mismatch');
      const changes: string[][] = [];
      trust.onChange(() => changes.push(trust.view().pinned));
      trust.setPins([other.fingerprint]);
      expect(trust.view()).toEqual({ pinned: [other.fingerprint], refused: null });
      expect(codeOf(await client.call('getKeys'))).toBe('bad_response');
      expect(fake.requests()).toBe(1);
      expect(changes).toEqual([[other.fingerprint]]);
    } finally {
      fake.server.close();
    }
  });

  it('accepts any of several pinned keys (instances behind one name that do not share one)', async () => {
    const fake = await impostor(other);
    try {
      const trust = new BackendTrust([identity.fingerprint, other.fingerprint]);
      const device = newTestDevice(backend.url, 'x');
      const client = createBackendClient({ baseUrl: backend.url, signer: device.signer, trust });
      expect(codeOf(await client.call('getKeys'))).toBe('unauthorized');
      const elsewhere = createBackendClient({ baseUrl: fake.url, signer: device.signer, trust });
      expect(codeOf(await elsewhere.call('getKeys'))).toBe('bad_response');
      expect(fake.requests()).toBe(1);
      expect(trust.view().refused).toBeNull();
    } finally {
      fake.server.close();
    }
  });
  it('never sends to a plain http:// address, calls, streams and uploads alike, and fails over to its https one', async () => {
    const plain = await startBackend({ dataDir: folder() });
    const recorder = await startHttpRecorder(plain.url);
    try {
      const device = newTestDevice(backend.url, 'pinned', undefined, [identity.fingerprint]);
      await createTestAccount(device);
      const signer = countingSigner(device.signer);
      const trust = new BackendTrust([identity.fingerprint]);
      const client = createBackendClient({ baseUrl: recorder.url, signer, trust, attempts: 2 });
      const answer = await client.call('me');
      expect(answer).toMatchObject({ ok: false, code: 'backend_plain_http' });
      expect(!answer.ok && answer.message).toBe(
        `this device pins its backend's key, so it sends nothing to ${recorder.url}, a plain http:// address where it would cross ` +
          "the network readable: use the backend's https:// address",
      );
      await expect(client.signedFetch('GET', '/v1/stream')).rejects.toThrow(/sends nothing/);
      expect(await client.putBlob('sha256:' + '0'.repeat(64), new Uint8Array(1))).toMatchObject({ ok: false, code: 'backend_plain_http' });
      // With its https address after the http one, it goes there, and still nothing to the http one.
      const both = createBackendClient({ baseUrl: [recorder.url, backend.url], signer, trust });
      expect(codeOf(await both.call('me'))).toBe('ok');
      expect(recorder.requests).toEqual([]);
      expect(signer.signed).toBe(1);
    } finally {
      await recorder.close();
      await plain.close();
    }
  });

  it('reaches the pinned backend through a TCP relay in front of it, TLS passing through untouched', async () => {
    const relay = await startTcpRelay(backend.url);
    try {
      expect(relay.url).toMatch(/^https:\/\/127\.0\.0\.1:/);
      const device = newTestDevice(relay.url, 'tablet', undefined, [identity.fingerprint]);
      await createTestAccount(device);
      expect(codeOf(await device.client.call('me'))).toBe('ok');
      expect(relay.accepted).toBeGreaterThan(0);
    } finally {
      await relay.down();
    }
  });
});

describe('a client with no pin', () => {
  it('refuses a self-signed key no trusted authority vouches for, naming its fingerprint and how to pin it', async () => {
    const device = newTestDevice(backend.url, 'laptop');
    const answer = await device.client.call('me');
    expect(answer).toMatchObject({ ok: false, code: 'backend_key_untrusted' });
    expect(!answer.ok && answer.message).toContain(identity.fingerprint);
    expect(!answer.ok && answer.message).toContain('--backend-pin');
    expect(device.client.trust.view().refused).toMatchObject({ presented: identity.fingerprint, reason: 'untrusted' });
  });

  it('speaks plain HTTP to an http address as before', async () => {
    const plain = await startBackend({ dataDir: folder() });
    try {
      const device = newTestDevice(plain.url, 'laptop');
      await createTestAccount(device);
      expect((await device.client.call('me')).ok).toBe(true);
    } finally {
      await plain.close();
    }
  });
});
