/**
 * The backend over real HTTP, as real `baton backend` processes: handoffs, fencing, idempotency, push.
 * On SQLite one process; on PostgreSQL two instances on one database, the devices spread over them
 * (source on one, target and the watching tablet on the other), so every rule holds across instances.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushMessage } from '../shared/api/push.ts';
import type { HandoffState } from '../shared/handoff-states.ts';
import { FORWARD_STATES } from '../shared/handoff-states.ts';
import { startBackendProcess, type BackendProcess } from '../dev-env/backend-process.ts';
import { openPushStream } from '../electron/sync/push-stream.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../dev-env/store-kinds.ts';
import { createBackendClient } from '../electron/sync/backend-client.ts';

let storage: TestStorage;
let instances: BackendProcess[];
let backend: BackendProcess;
let source: TestDevice;
let target: TestDevice;
let third: TestDevice;

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-backend');
    // Two instances on one database start together: migrations run once, under the lock.
    instances = await Promise.all((kind === 'postgres' ? [0, 1] : [0]).map(() => startBackendProcess(storage.args)));
    backend = instances[0]!;
    const other = instances.at(-1)!;
    source = newTestDevice(backend.url, 'laptop');
    target = newTestDevice(other.url, 'desktop');
    third = newTestDevice(other.url, 'tablet');
    await createTestAccount(source);
    await joinTestDevice(source, target);
    await joinTestDevice(source, third);
  });

  afterAll(async () => {
    for (const instance of instances) expect(await instance.stop()).toBe(0);
    storage.cleanup();
  });

  async function newSession(owner: TestDevice = source): Promise<string> {
    const sessionId = newId();
    const created = await owner.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
    expect(created.ok).toBe(true);
    return sessionId;
  }

  async function newHandoff(sessionId: string, generation = 1, from: TestDevice = source, to: TestDevice = target): Promise<string> {
    const handoffId = newId();
    const created = await from.client.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: to.id, generation } });
    if (!created.ok) throw new Error(`createHandoff: ${created.code}`);
    return handoffId;
  }

  async function uploadCheckpoint(device: TestDevice): Promise<{ digest: string; size: number }> {
    const body = Buffer.from(opaque(300));
    const digest = createHash('sha256').update(body).digest('hex');
    const put = await device.client.putBlob(digest, body);
    expect(put).toEqual({ ok: true, value: { digest, size: body.length } });
    return { digest, size: body.length };
  }

  function move(
    device: TestDevice,
    handoffId: string,
    from: HandoffState,
    to: HandoffState,
    generation: number,
    extra: Record<string, unknown> = {},
  ) {
    return device.client.call('transitionHandoff', { params: { handoffId }, body: { from, to, generation, ...extra } });
  }

  /** Walks a handoff from requested to source-relinquished-and-checkpointed. */
  async function walkToCheckpoint(handoffId: string, generation = 1) {
    const checkpoint = await uploadCheckpoint(source);
    expect((await move(target, handoffId, 'requested', 'target-prepared', generation)).ok).toBe(true);
    expect((await move(source, handoffId, 'target-prepared', 'source-quiescing', generation)).ok).toBe(true);
    expect((await move(source, handoffId, 'source-quiescing', 'source-relinquished-and-checkpointed', generation, { checkpoint })).ok).toBe(
      true,
    );
    return checkpoint;
  }

  describe('the backend process', () => {
    it('lets exactly one of 50 racing moves of one session win, and one of 50 racing steps of it, whatever instance each goes through', async () => {
      const sessionId = await newSession();
      const via = (device: TestDevice, i: number) =>
        createBackendClient({ baseUrl: instances[i % instances.length]!.url, signer: device.signer, attempts: 1 });
      const creates = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          via(source, i).call('createHandoff', {
            body: { handoffId: newId(), sessionId, targetDeviceId: (i % 2 ? target : third).id, generation: 1 },
          }),
        ),
      );
      const won = creates.filter((c) => c.ok);
      expect(won).toHaveLength(1);
      expect(new Set(creates.filter((c) => !c.ok).map((c) => !c.ok && c.code))).toEqual(new Set(['handoff_in_progress']));
      const handoff = won[0]!.ok ? won[0]!.value.handoff : undefined;
      const preparer = handoff!.targetDeviceId === target.id ? target : third;
      const steps = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          via(preparer, i).call('transitionHandoff', {
            params: { handoffId: handoff!.id },
            body: { from: 'requested', to: 'target-prepared', generation: 1 },
          }),
        ),
      );
      expect(steps.filter((s) => s.ok)).toHaveLength(1);
      expect(new Set(steps.filter((s) => !s.ok).map((s) => !s.ok && s.code))).toEqual(new Set(['state_mismatch']));
      const read = await target.client.call('getHandoff', { params: { handoffId: handoff!.id } });
      expect(read.ok && read.value.handoff.history.map((h) => h.state)).toEqual(['requested', 'target-prepared']);
    });

    it('walks a handoff through all seven states, transferring ownership at the new generation', async () => {
      const sessionId = await newSession();
      const handoffId = await newHandoff(sessionId);
      const checkpoint = await walkToCheckpoint(handoffId);
      const transferred = await move(target, handoffId, 'source-relinquished-and-checkpointed', 'ownership-transferred', 1);
      expect(transferred.ok && transferred.value.handoff.state).toBe('ownership-transferred');
      const session = await source.client.call('getSession', { params: { sessionId } });
      expect(session.ok && [session.value.session.ownerDeviceId, session.value.session.generation]).toEqual([target.id, 2]);
      expect((await move(target, handoffId, 'ownership-transferred', 'target-activating', 2)).ok).toBe(true);
      const done = await move(target, handoffId, 'target-activating', 'completed', 2, {
        resumePath: 'checkpoint-import',
        sealedOutcome: opaque(),
      });
      if (!done.ok) throw new Error(done.code);
      expect(done.value.handoff.history.map((h) => h.state)).toEqual([...FORWARD_STATES]);
      expect(done.value.handoff.history.map((h) => h.deviceId)).toEqual([
        source.id,
        target.id,
        source.id,
        source.id,
        target.id,
        target.id,
        target.id,
      ]);
      expect(done.value.handoff.checkpoint).toEqual(checkpoint);
      expect(done.value.handoff.resumePath).toBe('checkpoint-import');
    });

    it('lets exactly one of two racing creates for one session win', async () => {
      const sessionId = await newSession();
      const [a, b] = await Promise.all([
        source.client.call('createHandoff', { body: { handoffId: newId(), sessionId, targetDeviceId: target.id, generation: 1 } }),
        source.client.call('createHandoff', { body: { handoffId: newId(), sessionId, targetDeviceId: third.id, generation: 1 } }),
      ]);
      expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1);
      const loser = a.ok ? b : a;
      expect(!loser.ok && [loser.status, loser.code]).toEqual([409, 'handoff_in_progress']);
      const active = await source.client.call('listHandoffs', { query: { sessionId, active: 'true' } });
      expect(active.ok && active.value.handoffs).toHaveLength(1);
    });

    it('refuses a stale-generation event append and a stale-generation transition after the transfer', async () => {
      const sessionId = await newSession();
      expect((await source.client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque() } })).ok).toBe(
        true,
      );
      const handoffId = await newHandoff(sessionId);
      await walkToCheckpoint(handoffId);
      expect((await move(target, handoffId, 'source-relinquished-and-checkpointed', 'ownership-transferred', 1)).ok).toBe(true);

      const staleAppend = await source.client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque() } });
      expect(!staleAppend.ok && [staleAppend.status, staleAppend.code, staleAppend.details?.currentGeneration]).toEqual([
        409,
        'stale_generation',
        2,
      ]);
      const staleMeta = await source.client.call('updateSessionMeta', {
        params: { sessionId },
        body: { generation: 1, sealedMeta: opaque() },
      });
      expect(!staleMeta.ok && staleMeta.code).toBe('stale_generation');
      const staleMove = await move(target, handoffId, 'ownership-transferred', 'target-activating', 1);
      expect(!staleMove.ok && [staleMove.status, staleMove.code]).toEqual([409, 'stale_generation']);
      const notOwner = await source.client.call('appendEvent', { params: { sessionId }, body: { generation: 2, sealedBody: opaque() } });
      expect(!notOwner.ok && notOwner.code).toBe('not_owner');

      const fresh = await target.client.call('appendEvent', { params: { sessionId }, body: { generation: 2, sealedBody: opaque() } });
      expect(fresh.ok && [fresh.value.event.seq, fresh.value.event.generation]).toEqual([2, 2]);
      const events = await target.client.call('listEvents', { params: { sessionId }, query: { after: 0 } });
      expect(events.ok && events.value.events.map((e) => [e.seq, e.deviceId])).toEqual([
        [1, source.id],
        [2, target.id],
      ]);
      const handoff = await source.client.call('getHandoff', { params: { handoffId } });
      expect(handoff.ok && handoff.value.handoff.state).toBe('ownership-transferred');
    });

    it("takes an answer to the owner's permission request from any device of the account, fenced by generation only", async () => {
      const sessionId = await newSession();
      const answer = (from: typeof source, generation: number) =>
        from.client.call('postAnswer', { params: { sessionId }, body: { generation, sealedBody: opaque() } });
      const first = await answer(target, 1);
      expect(first.ok && [first.value.answer.seq, first.value.answer.deviceId, first.value.answer.generation]).toEqual([1, target.id, 1]);
      expect((await answer(source, 1)).ok).toBe(true);
      const handoffId = await newHandoff(sessionId);
      await walkToCheckpoint(handoffId);
      expect((await move(target, handoffId, 'source-relinquished-and-checkpointed', 'ownership-transferred', 1)).ok).toBe(true);
      const stale = await answer(third, 1);
      expect(!stale.ok && [stale.status, stale.code, stale.details?.currentGeneration]).toEqual([409, 'stale_generation', 2]);
      expect((await answer(source, 2)).ok).toBe(true);
      const listed = await target.client.call('listAnswers', { params: { sessionId }, query: { after: 1 } });
      expect(listed.ok && listed.value.answers.map((a) => [a.seq, a.deviceId, a.generation])).toEqual([
        [2, source.id, 1],
        [3, source.id, 2],
      ]);
      const events = await target.client.call('listEvents', { params: { sessionId } });
      expect(events.ok && events.value.events).toEqual([]);
    });

    it('refuses a cancel after the transfer by the source or another device, and keeps the record', async () => {
      const sessionId = await newSession();
      const handoffId = await newHandoff(sessionId);
      await walkToCheckpoint(handoffId);
      expect((await move(target, handoffId, 'source-relinquished-and-checkpointed', 'ownership-transferred', 1)).ok).toBe(true);
      const reason = { code: 'user_cancelled', sealed: 'c2VhbGVk' };
      for (const device of [source, third]) {
        const refused = await move(device, handoffId, 'ownership-transferred', 'cancelled', 2, { reason });
        expect(!refused.ok && [refused.status, refused.code]).toEqual([409, 'not_cancellable']);
      }
      const handoff = await target.client.call('getHandoff', { params: { handoffId } });
      expect(handoff.ok && [handoff.value.handoff.state, handoff.value.handoff.cancelReason]).toEqual(['ownership-transferred', null]);
    });

    it('cancels before the transfer with a reason, leaving the source the owner, and frees the session for a new handoff', async () => {
      const sessionId = await newSession();
      const handoffId = await newHandoff(sessionId);
      const noReason = await move(third, handoffId, 'requested', 'cancelled', 1);
      expect(!noReason.ok && noReason.code).toBe('validation_failed');
      // Only the code travels in clear: a sentence in clear is refused, the sealed one is kept as it came.
      const clear = await move(third, handoffId, 'requested', 'cancelled', 1, { reason: { code: 'user_cancelled', message: 'not now' } });
      expect(!clear.ok && [clear.status, clear.code]).toEqual([400, 'validation_failed']);
      const cancelled = await move(third, handoffId, 'requested', 'cancelled', 1, {
        reason: { code: 'user_cancelled', sealed: 'bm90IG5vdw' },
      });
      expect(cancelled.ok && cancelled.value.handoff.cancelReason).toEqual({ code: 'user_cancelled', sealed: 'bm90IG5vdw' });
      const session = await source.client.call('getSession', { params: { sessionId } });
      expect(session.ok && [session.value.session.ownerDeviceId, session.value.session.generation]).toEqual([source.id, 1]);
      await newHandoff(sessionId);
    });

    it('carries the key version the checkpoint will be sealed under, in clear, and refuses one the account does not have', async () => {
      const sessionId = await newSession();
      const ask = (keyVersion: number) =>
        source.client.call('createHandoff', {
          body: { handoffId: newId(), sessionId, targetDeviceId: target.id, generation: 1, keyVersion },
        });
      const beyond = await ask(2);
      expect(!beyond.ok && [beyond.status, beyond.code, beyond.details]).toEqual([400, 'validation_failed', { field: 'keyVersion' }]);
      const created = await ask(1);
      expect(created.ok && created.value.handoff.keyVersion).toBe(1);
      const listed = await target.client.call('listHandoffs', { query: { sessionId } });
      expect(listed.ok && listed.value.handoffs.map((h) => h.keyVersion)).toEqual([1]);
      if (created.ok)
        await move(source, created.value.handoff.id, 'requested', 'cancelled', 1, { reason: { code: 'user_cancelled', sealed: null } });
    });

    it('lists the handoffs of a session by page, newest first, each page after the last one of the page before', async () => {
      const sessionId = await newSession();
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        made.push(await newHandoff(sessionId));
        if (i < 4) await move(source, made[i]!, 'requested', 'cancelled', 1, { reason: { code: 'user_cancelled', sealed: null } });
      }
      const page = async (limit: number, before?: string, active?: 'true' | 'false') => {
        const listed = await target.client.call('listHandoffs', {
          query: { sessionId, limit, ...(before ? { before } : {}), ...(active ? { active } : {}) },
        });
        if (!listed.ok) throw new Error(listed.code);
        return listed.value.handoffs.map((h) => h.id);
      };
      const newest = [...made].reverse();
      expect(await page(2)).toEqual(newest.slice(0, 2));
      expect(await page(2, newest[1])).toEqual(newest.slice(2, 4));
      expect(await page(2, newest[3])).toEqual(newest.slice(4));
      expect(await page(2, newest[4])).toEqual([]);
      expect(await page(10, undefined, 'false')).toEqual(newest.slice(1));
      expect(await page(10, undefined, 'true')).toEqual(newest.slice(0, 1));
      // Every handoff keeps its whole history in a page, as in the full listing.
      const full = await target.client.call('listHandoffs', { query: { sessionId } });
      const paged = await target.client.call('listHandoffs', { query: { sessionId, limit: 5 } });
      expect(paged.ok && full.ok && paged.value.handoffs).toEqual(full.ok ? [...full.value.handoffs].reverse() : []);
      await move(source, made[4]!, 'requested', 'cancelled', 1, { reason: { code: 'user_cancelled', sealed: null } });
    });

    it('refuses transitions the table does not allow, or by the wrong role, or without their fields', async () => {
      const sessionId = await newSession();
      const handoffId = await newHandoff(sessionId);
      const bySource = await move(source, handoffId, 'requested', 'target-prepared', 1);
      expect(!bySource.ok && [bySource.status, bySource.code]).toEqual([409, 'illegal_transition']);
      const skip = await move(target, handoffId, 'requested', 'ownership-transferred', 1);
      expect(!skip.ok && skip.code).toBe('illegal_transition');
      const wrongFrom = await move(source, handoffId, 'target-prepared', 'source-quiescing', 1);
      expect(!wrongFrom.ok && [wrongFrom.code, wrongFrom.details?.currentState]).toEqual(['state_mismatch', 'requested']);
      expect((await move(target, handoffId, 'requested', 'target-prepared', 1)).ok).toBe(true);
      expect((await move(source, handoffId, 'target-prepared', 'source-quiescing', 1)).ok).toBe(true);
      const noCheckpoint = await move(source, handoffId, 'source-quiescing', 'source-relinquished-and-checkpointed', 1);
      expect(!noCheckpoint.ok && noCheckpoint.code).toBe('validation_failed');
      const missingBlob = await move(source, handoffId, 'source-quiescing', 'source-relinquished-and-checkpointed', 1, {
        checkpoint: { digest: 'a'.repeat(64), size: 3 },
      });
      expect(!missingBlob.ok && missingBlob.code).toBe('validation_failed');
      const handoff = await source.client.call('getHandoff', { params: { handoffId } });
      expect(handoff.ok && handoff.value.handoff.history.map((h) => h.state)).toEqual(['requested', 'target-prepared', 'source-quiescing']);
    });

    it('answers a retry with the same idempotency key with the first answer, and refuses the key for other content', async () => {
      const sessionId = await newSession();
      const handoffId = await newHandoff(sessionId);
      const idempotencyKey = newId();
      const body = { from: 'requested', to: 'target-prepared', generation: 1 } as const;
      const first = await target.client.call('transitionHandoff', { params: { handoffId }, body, idempotencyKey });
      const retry = await target.client.call('transitionHandoff', { params: { handoffId }, body, idempotencyKey });
      expect(first.ok).toBe(true);
      expect(retry).toEqual(first);
      const other = await target.client.call('transitionHandoff', {
        params: { handoffId },
        body: { ...body, generation: 2 },
        idempotencyKey,
      });
      expect(!other.ok && [other.status, other.code]).toEqual([422, 'idempotency_conflict']);
      const fresh = await target.client.call('transitionHandoff', { params: { handoffId }, body, idempotencyKey: newId() });
      expect(!fresh.ok && fresh.code).toBe('state_mismatch');
      const handoff = await source.client.call('getHandoff', { params: { handoffId } });
      expect(handoff.ok && handoff.value.handoff.history).toHaveLength(2);
    });

    it('answers two simultaneous sends of one idempotency key with one change and the same answer', async () => {
      const sessionId = await newSession();
      const idempotencyKey = newId();
      const body = { generation: 1, sealedBody: opaque() };
      const send = () => source.client.call('appendEvent', { params: { sessionId }, body, idempotencyKey });
      const [a, b] = await Promise.all([send(), send()]);
      expect(a.ok && b.ok && [a.value.event.seq, b.value.event.seq]).toEqual([1, 1]);
      const events = await source.client.call('listEvents', { params: { sessionId } });
      expect(events.ok && events.value.events).toHaveLength(1);
    });

    it('delivers each transition to a second client on the push stream', async () => {
      const received: PushMessage[] = [];
      let opened!: () => void;
      const open = new Promise<void>((resolve) => (opened = resolve));
      const close = openPushStream(third.client, (m) => received.push(m), { onOpen: () => opened() });
      try {
        await open;
        const sessionId = await newSession();
        const handoffId = await newHandoff(sessionId);
        await walkToCheckpoint(handoffId);
        await move(target, handoffId, 'source-relinquished-and-checkpointed', 'ownership-transferred', 1);
        await move(target, handoffId, 'ownership-transferred', 'target-activating', 2);
        await move(target, handoffId, 'target-activating', 'completed', 2, { resumePath: 'summary-continuation' });
        const seen = () =>
          received
            .filter((m) => m.type === 'handoff' && m.handoff.id === handoffId)
            .map((m) => (m.type === 'handoff' ? m.handoff.state : ''));
        await expect.poll(seen, { timeout: 2000 }).toEqual([...FORWARD_STATES]);
        expect(received[0]).toMatchObject({ type: 'hello', deviceId: third.id });
        expect(received.some((m) => m.type === 'session' && m.session.id === sessionId && m.session.generation === 2)).toBe(true);
      } finally {
        close();
      }
    });

    it('stores blobs by digest, refuses a body that does not hash to its address, and hides them from other accounts', async () => {
      const checkpoint = await uploadCheckpoint(source);
      const back = await target.client.getBlob(checkpoint.digest);
      expect(back.ok && back.value.length).toBe(checkpoint.size);
      const wrong = await source.client.putBlob('b'.repeat(64), Buffer.from('not that'));
      expect(!wrong.ok && [wrong.status, wrong.code]).toEqual([422, 'digest_mismatch']);
      const stranger = newTestDevice(backend.url, 'stranger');
      await createTestAccount(stranger);
      const hidden = await stranger.client.getBlob(checkpoint.digest);
      expect(!hidden.ok && [hidden.status, hidden.code]).toEqual([404, 'not_found']);
    });
  });
});
