/** The signed client against a real in-process backend: typed results, retries with one idempotency key. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../../backend/backend.ts';
import { SIGNATURE_HEADERS } from '../../shared/request-signing.ts';
import { createBackendClient } from './backend-client.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';

let dataDir: string;
let backend: RunningBackend;
let source: TestDevice;
let target: TestDevice;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'baton-client-'));
  backend = await startBackend({ dataDir });
  source = newTestDevice(backend.url, 'laptop');
  target = newTestDevice(backend.url, 'desktop');
  await createTestAccount(source);
  await joinTestDevice(source, target);
});

afterAll(async () => {
  await backend.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the backend client', () => {
  it('resends a call whose answer was lost with the same idempotency key and gets the first answer', async () => {
    const sessionId = newId();
    const keys: string[] = [];
    let lose = true;
    const lossy: typeof fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get(SIGNATURE_HEADERS.idempotencyKey) ?? '');
      const response = await fetch(input, init);
      if (lose) {
        lose = false;
        await response.arrayBuffer();
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    };
    const client = createBackendClient({ baseUrl: backend.url, signer: source.signer, fetch: lossy });
    const created = await client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    expect(created.ok && created.value.session.id).toBe(sessionId);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(keys[1]).toBe(keys[0]);
    const again = await source.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    expect(!again.ok && again.code).toBe('already_exists');
  });

  it('reports an unreachable backend as a value after its attempts', async () => {
    const client = createBackendClient({ baseUrl: 'http://127.0.0.1:9', signer: source.signer, attempts: 2 });
    const result = await client.call('listSessions');
    expect(!result.ok && [result.status, result.code]).toEqual([0, 'unreachable']);
  });

  it('returns API refusals with their status, code and details', async () => {
    const sessionId = newId();
    await source.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    const refused = await target.client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque() } });
    expect(refused).toMatchObject({ ok: false, status: 409, code: 'not_owner', details: { ownerDeviceId: source.id } });
  });

  it('builds queries from the route table and round-trips blobs', async () => {
    const sessionId = newId();
    await source.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    for (let i = 0; i < 3; i++)
      await source.client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque(8) } });
    const page = await target.client.call('listEvents', { params: { sessionId }, query: { after: 1, limit: 1 } });
    expect(page.ok && [page.value.events.map((e) => e.seq), page.value.nextCursor]).toEqual([[2], 2]);
    const bytes = new Uint8Array([1, 2, 3, 250]);
    const digest = (await import('./request-signer.ts')).sha256Hex(bytes);
    expect((await source.client.putBlob(digest, bytes)).ok).toBe(true);
    const back = await target.client.getBlob(digest);
    expect(back.ok && [...back.value]).toEqual([1, 2, 3, 250]);
  });

  it('uploads a body given as chunks (signed over the chunks in order, written unjoined) and refuses chunks whose joined digest differs', async () => {
    const chunks = [Buffer.from('head-'), Buffer.alloc(300_000, 7), new Uint8Array([9, 8, 7])];
    const whole = Buffer.concat(chunks);
    const { sha256Hex } = await import('./request-signer.ts');
    expect((await source.client.putBlob(sha256Hex(whole), chunks)).ok).toBe(true);
    const back = await target.client.getBlob(sha256Hex(whole));
    expect(back.ok && Buffer.from(back.value).equals(whole)).toBe(true);
    const reordered = await source.client.putBlob(sha256Hex(whole), [chunks[1]!, chunks[0]!, chunks[2]!]);
    expect(reordered.ok).toBe(false);
  });
});
