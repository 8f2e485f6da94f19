/**
 * No existence oracle: ids a client chooses are scoped to its account, so another account's ids look
 * exactly like unused ones, and content-addressed blobs do not tell one account what another stored.
 * Real HTTP against an in-process backend on a real SQLite file.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../backend.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

let storage: TestStorage;
let backend: RunningBackend;
let alice: TestDevice;
let aliceDesk: TestDevice;
let bob: TestDevice;
let bobDesk: TestDevice;
let bobAccount: string;

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-scoped');
    backend = await startBackend(storage.options);
    alice = newTestDevice(backend.url, 'alice');
    aliceDesk = newTestDevice(backend.url, 'alice desk');
    bob = newTestDevice(backend.url, 'bob');
    bobDesk = newTestDevice(backend.url, 'bob desk');
    await createTestAccount(alice);
    await joinTestDevice(alice, aliceDesk);
    bobAccount = (await createTestAccount(bob)).accountId;
    await joinTestDevice(bob, bobDesk);
  });

  afterAll(async () => {
    await backend.close();
    storage.cleanup();
  });

  /** Status and body of a raw signed request, for comparing answers byte for byte. */
  async function raw(device: TestDevice, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
    const response = await device.client.signedFetch(method, path, {
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    });
    return { status: response.status, body: await response.text() };
  }

  const blobOf = (text: string) => {
    const body = Buffer.from(text);
    return { body, digest: createHash('sha256').update(body).digest('hex'), size: body.length };
  };

  describe('client-chosen ids', () => {
    it('lets two accounts use the same session and handoff ids independently', async () => {
      const sessionId = newId();
      const handoffId = newId();
      for (const [owner, desk] of [
        [alice, aliceDesk],
        [bob, bobDesk],
      ] as const) {
        const created = await owner.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
        expect(created.ok && [created.value.session.ownerDeviceId, created.value.session.generation]).toEqual([owner.id, 1]);
        const handoff = await owner.client.call('createHandoff', {
          body: { handoffId, sessionId, targetDeviceId: desk.id, generation: 1 },
        });
        expect(handoff.ok && handoff.value.handoff.sourceDeviceId).toBe(owner.id);
        const event = await owner.client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque() } });
        expect(event.ok && event.value.event.seq).toBe(1);
      }
      const seen = await bob.client.call('getHandoff', { params: { handoffId } });
      expect(seen.ok && [seen.value.handoff.sourceDeviceId, seen.value.handoff.history.length]).toEqual([bob.id, 1]);
      const moved = await bobDesk.client.call('transitionHandoff', {
        params: { handoffId },
        body: { from: 'requested', to: 'target-prepared', generation: 1 },
      });
      expect(moved.ok).toBe(true);
      const alices = await alice.client.call('getHandoff', { params: { handoffId } });
      expect(alices.ok && [alices.value.handoff.state, alices.value.handoff.sourceDeviceId]).toEqual(['requested', alice.id]);
      const events = await alice.client.call('listEvents', { params: { sessionId } });
      expect(events.ok && events.value.events.map((e) => e.deviceId)).toEqual([alice.id]);
    });

    it("answers another account's session and handoff ids exactly like ids nobody uses", async () => {
      const sessionId = newId();
      const handoffId = newId();
      expect((await alice.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
      const made = await alice.client.call('createHandoff', {
        body: { handoffId, sessionId, targetDeviceId: aliceDesk.id, generation: 1 },
      });
      expect(made.ok).toBe(true);
      const unused = { sessionId: newId(), handoffId: newId() };
      const probes = (ids: { sessionId: string; handoffId: string }) => [
        raw(bob, 'GET', `/v1/sessions/${ids.sessionId}`),
        raw(bob, 'GET', `/v1/sessions/${ids.sessionId}/events`),
        raw(bob, 'PUT', `/v1/sessions/${ids.sessionId}/meta`, { generation: 1, sealedMeta: 'AA' }),
        raw(bob, 'POST', `/v1/sessions/${ids.sessionId}/events`, { generation: 1, sealedBody: 'AA' }),
        raw(bob, 'POST', `/v1/sessions/${ids.sessionId}/answers`, { generation: 1, sealedBody: 'AA' }),
        raw(bob, 'GET', `/v1/sessions/${ids.sessionId}/answers`),
        raw(bob, 'GET', `/v1/handoffs/${ids.handoffId}`),
        raw(bob, 'POST', `/v1/handoffs/${ids.handoffId}/transitions`, { from: 'requested', to: 'target-prepared', generation: 1 }),
        raw(bob, 'POST', '/v1/handoffs', { handoffId: newId(), sessionId: ids.sessionId, targetDeviceId: bobDesk.id, generation: 1 }),
      ];
      const used = await Promise.all(probes({ sessionId, handoffId }));
      const fresh = await Promise.all(probes(unused));
      expect(used).toEqual(fresh);
      expect(used.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 404]);
      // Creating with the other account's ids succeeds, as with unused ones.
      const mine = await raw(bob, 'POST', '/v1/sessions', { sessionId, sealedMeta: 'AA' });
      expect(mine.status).toBe(200);
    });

    it('scopes invite and memory item ids to the account', async () => {
      const inviteId = newId();
      const itemId = newId();
      const topic = createHash('sha256').update(newId()).digest('hex');
      for (const device of [alice, bob]) {
        const invite = await device.client.call('createInvite', { body: { inviteId } });
        expect(invite.ok && invite.value.invite.inviterDeviceId).toBe(device.id);
        const item = await device.client.call('putMemory', { body: { itemId, topic, sealedBody: opaque() } });
        expect(item.ok && item.value.item.deviceId).toBe(device.id);
      }
      const again = await bob.client.call('putMemory', { body: { itemId, topic, sealedBody: opaque() } });
      expect(!again.ok && again.code).toBe('already_exists');
      // A join names the account: the same invite id reaches each account's own invite.
      const joiner = newTestDevice(backend.url, 'joiner');
      const accountId = bobAccount;
      const join = await joiner.client.call('createJoinRequest', {
        body: {
          accountId,
          inviteId,
          deviceId: joiner.id,
          name: joiner.name,
          keys: { signingPublicKey: joiner.signingPublicKey, agreementPublicKey: joiner.agreementPublicKey },
          proof: opaque(16),
        },
      });
      expect(join.ok && [join.value.joinRequest.accountId, join.value.joinRequest.inviterDeviceId]).toEqual([accountId, bob.id]);
    });
  });

  describe('content-addressed blobs across accounts', () => {
    it('does not tell an account whether another one stored a digest: reads, checkpoints and uploads answer as if it were new', async () => {
      const stored = blobOf(`alice's checkpoint ${newId()}`);
      const never = blobOf(`nobody's checkpoint ${newId()}`);
      expect(await alice.client.putBlob(stored.digest, stored.body)).toEqual({
        ok: true,
        value: { digest: stored.digest, size: stored.size },
      });

      const [theirs, nobodys] = await Promise.all([
        raw(bob, 'GET', `/v1/blobs/${stored.digest}`),
        raw(bob, 'GET', `/v1/blobs/${never.digest}`),
      ]);
      expect(theirs).toEqual(nobodys);
      expect(theirs.status).toBe(404);

      // A checkpoint naming a digest that only another account uploaded is refused like an absent one.
      const sessionId = newId();
      const handoffId = newId();
      expect((await bob.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
      expect(
        (await bob.client.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: bobDesk.id, generation: 1 } })).ok,
      ).toBe(true);
      const step = (device: TestDevice, from: string, to: string) =>
        raw(device, 'POST', `/v1/handoffs/${handoffId}/transitions`, { from, to, generation: 1 });
      expect((await step(bobDesk, 'requested', 'target-prepared')).status).toBe(200);
      expect((await step(bob, 'target-prepared', 'source-quiescing')).status).toBe(200);
      const checkpoint = (ref: { digest: string; size: number }) =>
        raw(bob, 'POST', `/v1/handoffs/${handoffId}/transitions`, {
          from: 'source-quiescing',
          to: 'source-relinquished-and-checkpointed',
          generation: 1,
          checkpoint: { digest: ref.digest, size: ref.size },
        });
      const [withTheirs, withNobodys] = [await checkpoint(stored), await checkpoint(never)];
      expect(withTheirs).toEqual(withNobodys);
      expect(withTheirs.status).toBe(400);

      // Uploading the same bytes answers exactly as a first upload does, and only then can Bob read them.
      const [again, first] = [await bob.client.putBlob(stored.digest, stored.body), await bob.client.putBlob(never.digest, never.body)];
      expect(again).toEqual({ ok: true, value: { digest: stored.digest, size: stored.size } });
      expect(first).toEqual({ ok: true, value: { digest: never.digest, size: never.size } });
      const read = await bob.client.getBlob(stored.digest);
      expect(read.ok && Buffer.from(read.value).equals(stored.body)).toBe(true);
      expect((await checkpoint(stored)).status).toBe(200);
    });
  });
});
