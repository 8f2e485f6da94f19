/**
 * Durability: a backend process killed with SIGKILL while several clients are moving handoffs still
 * holds every acknowledged transition and nothing half-written. On SQLite the process is restarted on
 * its data folder; on PostgreSQL two instances share the database, one is killed in the middle of the
 * traffic, the clients on the other keep going, and a fresh instance reads back what both acknowledged.
 */
import { createHash } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { FORWARD_STATES, type HandoffState } from '../shared/handoff-states.ts';
import { startBackendProcess, type BackendProcess } from '../dev-env/backend-process.ts';
import { createBackendClient, type BackendClient } from '../electron/sync/backend-client.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, walkHandoff, type TestDevice } from '../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../dev-env/store-kinds.ts';

const running: BackendProcess[] = [];
const storages: TestStorage[] = [];

afterAll(async () => {
  for (const backend of running) await backend.stop('SIGKILL');
  for (const storage of storages) storage.cleanup();
});

interface Acked {
  handoffId: string;
  state: HandoffState;
}

/** One client pair moving a session back and forth until the backend goes away; records every acknowledged step. */
async function shuttle(
  a: BackendClient,
  b: BackendClient,
  sessionId: string,
  checkpoint: { digest: string; size: number },
  acked: Acked[],
): Promise<void> {
  let [owner, other] = [a, b];
  for (let generation = 1; ; generation++) {
    const walked = await walkHandoff(owner, other, sessionId, generation, checkpoint, (handoffId, state) =>
      acked.push({ handoffId, state }),
    );
    if (!walked.ok) return;
    [owner, other] = [other, owner];
  }
}

it.each(STORE_KINDS)(
  'on the %s store, keeps every acknowledged transition and no half-written transfer across a SIGKILL',
  async (kind) => {
    const storage = await testStorage(kind, 'baton-durability');
    storages.push(storage);
    const first = await startBackendProcess(storage.args);
    running.push(first);
    // PostgreSQL: a second instance on the database, which half the clients use and which lives on.
    const survivor = kind === 'postgres' ? await startBackendProcess(storage.args) : undefined;
    if (survivor) running.push(survivor);
    const pairs: [TestDevice, TestDevice][] = [];
    const anchor = newTestDevice(first.url, 'anchor');
    await createTestAccount(anchor);
    for (let i = 0; i < 3; i++) {
      const a = newTestDevice(first.url, `a${i}`);
      const b = newTestDevice(first.url, `b${i}`);
      await joinTestDevice(anchor, a);
      await joinTestDevice(anchor, b);
      pairs.push([a, b]);
    }
    const body = Buffer.from(opaque(200));
    const checkpoint = { digest: createHash('sha256').update(body).digest('hex'), size: body.length };
    expect((await anchor.client.putBlob(checkpoint.digest, body)).ok).toBe(true);

    const oneShot = (d: TestDevice, i: number) =>
      createBackendClient({ baseUrl: (survivor && i % 2 ? survivor : first).url, signer: d.signer, attempts: 1 });
    const sessions: { sessionId: string; a: TestDevice; b: TestDevice; acked: Acked[] }[] = [];
    for (const [a, b] of pairs) {
      const sessionId = newId();
      expect((await a.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
      sessions.push({ sessionId, a, b, acked: [] });
    }
    const runs = sessions.map((s, i) => shuttle(oneShot(s.a, i), oneShot(s.b, i), s.sessionId, checkpoint, s.acked));
    await expect.poll(() => sessions.every((s) => s.acked.length >= 12), { timeout: 20_000, interval: 20 }).toBe(true);
    await first.stop('SIGKILL');
    if (survivor) {
      // The clients on the surviving instance are still moving sessions: let them, then stop them there.
      const before = sessions[1]!.acked.length;
      await expect.poll(() => sessions[1]!.acked.length, { timeout: 10_000, interval: 20 }).toBeGreaterThan(before + 6);
      await survivor.stop('SIGKILL');
    }
    await Promise.all(runs);

    const second = await startBackendProcess(storage.args);
    running.push(second);
    const reader = createBackendClient({ baseUrl: second.url, signer: anchor.signer });
    for (const { sessionId, a, b, acked } of sessions) {
      const listed = await reader.call('listHandoffs', { query: { sessionId } });
      const session = await reader.call('getSession', { params: { sessionId } });
      if (!listed.ok || !session.ok) throw new Error('the restarted backend lost a session');
      const handoffs = new Map(listed.value.handoffs.map((h) => [h.id, h]));
      for (const step of acked) {
        expect(
          handoffs.get(step.handoffId)?.history.map((h) => h.state),
          `${step.handoffId} reached ${step.state}`,
        ).toContain(step.state);
      }
      let generation = 1;
      let owner = a.id;
      for (const handoff of listed.value.handoffs) {
        const states = handoff.history.map((h) => h.state);
        expect(states).toEqual(FORWARD_STATES.slice(0, states.length));
        expect(states.at(-1)).toBe(handoff.state);
        expect(handoff.generation).toBe(generation);
        if (states.includes('ownership-transferred')) {
          generation++;
          owner = handoff.targetDeviceId;
        }
      }
      expect([session.value.session.generation, session.value.session.ownerDeviceId]).toEqual([generation, owner]);
      expect(listed.value.handoffs.filter((h) => h.state !== 'completed').length).toBeLessThanOrEqual(1);

      // The machine is where it was: the owner (the target, once ownership moved) ends any unfinished
      // handoff from the state it was left in, and the session takes a new one.
      const [ownerDevice, otherDevice] = owner === a.id ? [a, b] : [b, a];
      const client = createBackendClient({ baseUrl: second.url, signer: ownerDevice.signer });
      const open = listed.value.handoffs.find((h) => h.state !== 'completed');
      if (open) {
        const ended = await client.call('transitionHandoff', {
          params: { handoffId: open.id },
          body: { from: open.state, to: 'cancelled', generation, reason: { code: 'backend_restarted', sealed: null } },
        });
        expect(ended.ok && ended.value.handoff.state).toBe('cancelled');
      }
      const next = await client.call('createHandoff', {
        body: { handoffId: newId(), sessionId, targetDeviceId: otherDevice.id, generation },
      });
      expect(next.ok).toBe(true);
    }
  },
  60_000,
);
