/** Authentication refusals and bad input over real HTTP against an in-process backend with a fake clock. */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routePath, routes, type RouteName, type RouteSpec } from '../../shared/api/routes.ts';
import { startBackend, type RunningBackend } from '../backend.ts';
import { createBackendClient } from '../../electron/sync/backend-client.ts';
import { keyObjectSigner, signatureHeaders } from '../../electron/sync/request-signer.ts';
import { openPushStream } from '../../electron/sync/push-stream.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

const now = Date.UTC(2026, 10, 30, 12, 0, 0);
const clock = () => now;
let storage: TestStorage;
let backend: RunningBackend;
let alice: TestDevice;
let aliceTablet: TestDevice;
let bob: TestDevice;
let sessionId: string;
const logged: string[] = [];

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-pipeline');
    backend = await startBackend({
      ...storage.options,
      clock,
      limits: { maxJsonBytes: 64 * 1024, maxBlobBytes: 1024 },
      log: (line) => logged.push(line),
    });
    alice = newTestDevice(backend.url, 'alice laptop', clock);
    aliceTablet = newTestDevice(backend.url, 'alice tablet', clock);
    bob = newTestDevice(backend.url, 'bob laptop', clock);
    await createTestAccount(alice);
    await joinTestDevice(alice, aliceTablet);
    await createTestAccount(bob);
    sessionId = newId();
    const created = await alice.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    expect(created.ok).toBe(true);
  });

  afterAll(async () => {
    await backend.close();
    storage.cleanup();
  });

  const sessionsOf = async (device: TestDevice) => {
    const listed = await device.client.call('listSessions');
    if (!listed.ok) throw new Error(listed.code);
    return listed.value.sessions;
  };

  /** Sends `body` as-is to a route, signed by `device`. */
  async function rawSigned(device: TestDevice, method: 'POST' | 'PUT' | 'GET', path: string, body?: string | Buffer) {
    const response = await device.client.signedFetch(method, path, { body: body === undefined ? undefined : Buffer.from(body) });
    return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
  }

  describe('request authentication', () => {
    it('refuses a request with no signature', async () => {
      const response = await fetch(`${backend.url}/v1/sessions`);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'unauthorized' } });
    });

    it('refuses a signature made with another key', async () => {
      const impostor = createBackendClient({
        baseUrl: backend.url,
        signer: keyObjectSigner(alice.id, generateKeyPairSync('ed25519').privateKey),
        clock,
      });
      const result = await impostor.call('listSessions');
      expect(!result.ok && [result.status, result.code]).toEqual([401, 'unauthorized']);
    });

    it('refuses a signature over a different body than the one sent', async () => {
      const path = '/v1/sessions';
      const headers = signatureHeaders(alice.signer, 'POST', path, Buffer.from('{"sessionId":"x"}'), now);
      const response = await fetch(`${backend.url}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ sessionId: newId(), sealedMeta: 'aa' }),
      });
      expect(response.status).toBe(401);
      const junk = await fetch(`${backend.url}${path}`, {
        method: 'POST',
        headers: signatureHeaders(alice.signer, 'POST', path, Buffer.from('{}'), now),
        body: '{not json',
      });
      expect(junk.status).toBe(401);
    });

    it('refuses a request more than five minutes from the server clock, either way', async () => {
      for (const offset of [-6 * 60_000, 6 * 60_000]) {
        const skewed = createBackendClient({ baseUrl: backend.url, signer: alice.signer, clock: () => now + offset });
        const result = await skewed.call('listSessions');
        expect(!result.ok && [result.status, result.code]).toEqual([401, 'clock_skew']);
      }
      const close = createBackendClient({ baseUrl: backend.url, signer: alice.signer, clock: () => now + 4 * 60_000 });
      expect((await close.call('listSessions')).ok).toBe(true);
    });

    it('refuses a replayed nonce', async () => {
      const path = '/v1/sessions';
      const headers = signatureHeaders(alice.signer, 'GET', path, undefined, now);
      expect((await fetch(`${backend.url}${path}`, { headers })).status).toBe(200);
      const replay = await fetch(`${backend.url}${path}`, { headers });
      expect(replay.status).toBe(401);
      expect(await replay.json()).toMatchObject({ error: { code: 'replayed_nonce' } });
    });

    it('answers 404 for every resource of another account', async () => {
      const handoffId = newId();
      expect(
        (await alice.client.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: aliceTablet.id, generation: 1 } })).ok,
      ).toBe(true);
      const blob = Buffer.from('alice only');
      const digest = createHash('sha256').update(blob).digest('hex');
      expect((await alice.client.putBlob(digest, blob)).ok).toBe(true);
      const attempts = [
        await bob.client.call('getSession', { params: { sessionId } }),
        await bob.client.call('listEvents', { params: { sessionId } }),
        await bob.client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque() } }),
        await bob.client.call('postAnswer', { params: { sessionId }, body: { generation: 1, sealedBody: opaque() } }),
        await bob.client.call('listAnswers', { params: { sessionId } }),
        await bob.client.call('getHandoff', { params: { handoffId } }),
        await bob.client.call('transitionHandoff', {
          params: { handoffId },
          body: { from: 'requested', to: 'cancelled', generation: 1, reason: { code: 'user_cancelled', sealed: null } },
        }),
        await bob.client.call('revokeDevice', { params: { deviceId: aliceTablet.id }, body: {} }),
        await bob.client.call('createHandoff', { body: { handoffId: newId(), sessionId, targetDeviceId: aliceTablet.id, generation: 1 } }),
        await bob.client.getBlob(digest),
      ];
      for (const attempt of attempts) expect(!attempt.ok && [attempt.status, attempt.code]).toEqual([404, 'not_found']);
      expect(await sessionsOf(bob)).toEqual([]);
      const handoff = await alice.client.call('getHandoff', { params: { handoffId } });
      expect(handoff.ok && handoff.value.handoff.state).toBe('requested');
      expect(
        (
          await alice.client.call('transitionHandoff', {
            params: { handoffId },
            body: { from: 'requested', to: 'cancelled', generation: 1, reason: { code: 'user_cancelled', sealed: null } },
          })
        ).ok,
      ).toBe(true);
    });

    it('refuses every request of a revoked device at once, closes its push stream and ends its pending handoffs', async () => {
      const doomed = newTestDevice(backend.url, 'old phone', clock);
      await joinTestDevice(alice, doomed);
      expect((await doomed.client.call('me')).ok).toBe(true);
      const errors: string[] = [];
      let opened!: () => void;
      const open = new Promise<void>((resolve) => (opened = resolve));
      const close = openPushStream(
        doomed.client,
        () => undefined,
        { onOpen: () => opened(), onError: (e) => errors.push(e.code) },
        { initialBackoffMs: 10 },
      );
      await open;
      const streams = backend.push.size;
      const moving = newId();
      const session = newId();
      expect((await alice.client.call('createSession', { body: { sessionId: session, sealedMeta: opaque() } })).ok).toBe(true);
      expect(
        (
          await alice.client.call('createHandoff', {
            body: { handoffId: moving, sessionId: session, targetDeviceId: doomed.id, generation: 1 },
          })
        ).ok,
      ).toBe(true);
      const revoked = await alice.client.call('revokeDevice', { params: { deviceId: doomed.id }, body: {} });
      expect(revoked.ok && revoked.value.device.status).toBe('revoked');
      const refused = await doomed.client.call('me');
      expect(!refused.ok && [refused.status, refused.code]).toEqual([401, 'device_revoked']);
      const ended = await alice.client.call('getHandoff', { params: { handoffId: moving } });
      expect(
        ended.ok && [ended.value.handoff.state, ended.value.handoff.cancelReason?.code, ended.value.handoff.history.at(-1)?.deviceId],
      ).toEqual(['cancelled', 'device_revoked', null]);
      await expect.poll(() => errors.at(-1), { timeout: 2000 }).toBe('device_revoked');
      expect(backend.push.size).toBe(streams - 1);
      close();
    });

    it('lets a pending device read only its own join request and itself', async () => {
      const pending = newTestDevice(backend.url, 'new box', clock);
      const inviteId = newId();
      const invite = await alice.client.call('createInvite', { body: { inviteId, ttlMs: 60_000 } });
      if (!invite.ok) throw new Error(invite.code);
      const join = await pending.client.call('createJoinRequest', {
        body: {
          accountId: invite.value.invite.accountId,
          inviteId,
          deviceId: pending.id,
          name: pending.name,
          keys: { signingPublicKey: pending.signingPublicKey, agreementPublicKey: pending.agreementPublicKey },
          proof: opaque(16),
        },
      });
      if (!join.ok) throw new Error(join.code);
      expect((await pending.client.call('me')).ok).toBe(true);
      const own = await pending.client.call('getJoinRequest', { params: { joinRequestId: join.value.joinRequest.id } });
      expect(own.ok && own.value.joinRequest.status).toBe('pending');
      const sessions = await pending.client.call('listSessions');
      expect(!sessions.ok && [sessions.status, sessions.code]).toEqual([403, 'forbidden']);
      expect(
        (
          await alice.client.call('rejectJoinRequest', {
            params: { joinRequestId: join.value.joinRequest.id },
            body: { reason: 'unknown device' },
          })
        ).ok,
      ).toBe(true);
      const rejected = await pending.client.call('getJoinRequest', { params: { joinRequestId: join.value.joinRequest.id } });
      expect(rejected.ok && [rejected.value.joinRequest.status, rejected.value.joinRequest.reason]).toEqual(['rejected', 'unknown device']);
    });
  });

  describe('bad input', () => {
    it('refuses malformed JSON, wrong types, unknown fields and oversized bodies with a 4xx and changes nothing', async () => {
      const before = await sessionsOf(alice);
      const cases: [string | Buffer, number, string][] = [
        ['{"sessionId":', 400, 'invalid_json'],
        ['', 400, 'invalid_json'],
        [JSON.stringify({ sessionId: 42, sealedMeta: 'aa' }), 400, 'validation_failed'],
        [JSON.stringify({ sessionId: newId(), sealedMeta: 'not base64url!' }), 400, 'validation_failed'],
        [JSON.stringify({ sessionId: newId(), sealedMeta: 'aa', title: 'leak' }), 400, 'validation_failed'],
        [JSON.stringify([1, 2]), 400, 'validation_failed'],
        [JSON.stringify({ sessionId: newId(), sealedMeta: 'a'.repeat(70 * 1024) }), 413, 'body_too_large'],
      ];
      for (const [body, status, code] of cases) {
        const answer = await rawSigned(alice, 'POST', '/v1/sessions', body);
        expect([answer.status, answer.body.error?.code]).toEqual([status, code]);
      }
      expect(await sessionsOf(alice)).toEqual(before);
    });

    it('refuses an unknown query parameter and a malformed id', async () => {
      expect((await rawSigned(alice, 'GET', '/v1/handoffs?colour=red')).status).toBe(400);
      expect((await rawSigned(alice, 'GET', '/v1/sessions/short')).status).toBe(404);
      expect((await rawSigned(alice, 'GET', '/v1/sessions/%E0%A4%A')).status).toBe(404);
    });

    it('refuses a blob over the size limit', async () => {
      const body = Buffer.alloc(4096, 7);
      const result = await alice.client.putBlob(createHash('sha256').update(body).digest('hex'), body);
      expect(!result.ok && [result.status, result.code]).toEqual([413, 'body_too_large']);
      expect((await alice.client.getBlob(createHash('sha256').update(body).digest('hex'))).ok).toBe(false);
    });

    it('answers every JSON route given junk bodies with a 4xx, never a 500', async () => {
      const junk = ['null', '[]', '"x"', '{}', '{"unknown":1}', '{"generation":"1"}', '\u0000\u0001', '{"a":'.repeat(50)];
      const params: Record<string, string> = { deviceId: newId(), joinRequestId: newId(), sessionId, handoffId: newId() };
      for (const [name, spec] of Object.entries(routes) as [RouteName, RouteSpec][]) {
        if (spec.method === 'GET' || spec.raw) continue;
        const path = routePath(
          spec.path,
          Object.fromEntries(
            Object.keys(params)
              .filter((k) => spec.path.includes(`:${k}`))
              .map((k) => [k, params[k]!]),
          ),
        );
        for (const body of junk) {
          const answer = await rawSigned(alice, spec.method, path, body);
          expect(answer.status, `${name} with ${body.slice(0, 20)}`).toBeGreaterThanOrEqual(400);
          expect(answer.status, `${name} with ${body.slice(0, 20)}`).toBeLessThan(500);
        }
      }
      expect(logged).toEqual([]);
      const me = await aliceTablet.client.call('me');
      expect(me.ok && me.value.device.status).toBe('enrolled');
    });
  });
});
