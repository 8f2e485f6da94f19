/**
 * The owner's checks on a Move here request, with real keys and real sealing, read from the
 * session's log as the owner reads it (session-posts.ts): it starts the move only for a request
 * sealed for this session, signed by the enrolled device the backend says sent it, at the session's
 * generation now, recent and seen once; every other request is refused, and a post that is not a
 * Move here request at all goes to the answers' part.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Device } from '../../shared/api/devices.ts';
import type { SessionAnswer } from '../../shared/api/sessions.ts';
import { ok } from '../../shared/errors.ts';
import { KeyRing } from '../crypto/key-ring.ts';
import { identityFromKeys, type DeviceIdentity } from '../crypto/device-identity.ts';
import { ringSeal } from './adapters/seal-port.ts';
import { MOVE_HERE_MAX_AGE_MS } from '../../shared/device-api.ts';
import { MoveHere } from './move-here.ts';
import { SessionPosts } from './session-posts.ts';

const NOW = 1_800_000_000_000;
const seal = ringSeal('account-1', new KeyRing([[1, randomBytes(32)]]));

function identity(): DeviceIdentity {
  return identityFromKeys(generateKeyPairSync('ed25519').privateKey, generateKeyPairSync('x25519').privateKey);
}

const owner = identity();
const desktop = identity();
const stranger = identity();

function device(id: DeviceIdentity, status: Device['status'] = 'enrolled'): Device {
  return {
    id: id.deviceId,
    accountId: 'account-1',
    name: id === owner ? 'laptop' : 'desktop',
    status,
    signingPublicKey: id.keys.signingPublicKey,
    agreementPublicKey: id.keys.agreementPublicKey,
    enrolledAt: 1,
    revokedAt: null,
    lastSeenAt: NOW,
    sealedCapabilities: null,
    keyVersions: [1],
  };
}

/**
 * MoveHere parts: the desktop's, which asks, and the owner's, which applies what `read` hands it from
 * the session's log; `posted` is that log as it reached the backend, `answers` what went to the
 * answers' part instead.
 */
function world(options: { generation?: number; desktopStatus?: Device['status']; clock?: () => number; online?: boolean } = {}) {
  const posted: SessionAnswer[] = [];
  const started: [string, string, string, boolean][] = [];
  const devices = new Map([owner, desktop].map((d) => [d.deviceId, device(d, d === desktop ? options.desktopStatus : 'enrolled')]));
  const directory = {
    get: (id: string) => devices.get(id),
    isOnline: () => options.online ?? true,
    nameOf: (id: string) => devices.get(id)?.name ?? id,
  };
  const answers: unknown[] = [];
  const permissions = { answerCursor: 0, seenMoveHere: [] };
  const session = { id: 's1', ownerDeviceId: owner.deviceId, generation: options.generation ?? 1, permissions };
  const part = (self: DeviceIdentity, generation: number) =>
    new MoveHere({
      selfId: self.deviceId,
      state: {
        readSession: () => ({ ...session, generation }) as never,
        updateSession: (_id, change) => {
          change(session as never);
          return true;
        },
      },
      backend: {
        postAnswer: async (sessionId, gen, sealedBody) => {
          const entry = { sessionId, seq: posted.length + 1, generation: gen, deviceId: self.deviceId, sealedBody, createdAt: NOW };
          posted.push(entry);
          return ok(entry);
        },
      },
      seal,
      signer: self,
      devices: directory,
      handoffs: { active: () => undefined },
      start: async (sessionId, target, initiator, freshClone) => {
        started.push([sessionId, target, initiator, freshClone]);
        return ok({ handoffId: 'h1' });
      },
      clock: options.clock ?? (() => NOW),
      log: () => undefined,
    });
  const log = new SessionPosts({
    selfId: owner.deviceId,
    state: {
      readSession: () => session as never,
      updateSession: (_id, change) => {
        change(session as never);
        return true;
      },
    },
    backend: { listAnswers: async (sessionId, after) => ok(posted.filter((p) => p.sessionId === sessionId && p.seq > after)) },
    seal,
    handlers: {
      'permission-answer': { take: async (_sessionId, _posted, body) => void answers.push(body) },
      'move-here-request': part(owner, session.generation),
    },
  });
  const read = (sessionId = 's1') => log.pull(sessionId);
  return { posted, started, answers, read, asker: part(desktop, 1), strangerPart: part(stranger, 1) };
}

describe("the owner's checks on Move here", () => {
  it('starts the move to the asking device, naming it as initiator, once', async () => {
    const w = world();
    expect(await w.asker.ask('s1')).toEqual({ ok: true, value: undefined });
    await w.read();
    expect(w.started).toEqual([['s1', desktop.deviceId, desktop.deviceId, false]]);
    // The same post read again (a replay) starts nothing.
    w.posted.push({ ...w.posted[0]!, seq: 2 });
    await w.read();
    expect(w.started).toHaveLength(1);
    expect(w.answers).toEqual([]);
  });

  it('moves into a fresh clone on the asking device when it asked for one, signed as such', async () => {
    const w = world();
    expect(await w.asker.ask('s1', { freshClone: true })).toEqual({ ok: true, value: undefined });
    await w.read();
    expect(w.started).toEqual([['s1', desktop.deviceId, desktop.deviceId, true]]);
  });

  it('asks nothing when the session moved on since the button was drawn (another generation)', async () => {
    const w = world();
    const asked = await w.asker.ask('s1', { generation: 2 });
    expect(asked.ok ? 'asked' : asked.code).toBe('stale_generation');
    expect(asked.ok ? '' : asked.message).toContain('runs on laptop now');
    expect(w.posted).toEqual([]);
  });

  it('refuses a request that names another device than the one that sent it', async () => {
    const w = world();
    await w.asker.ask('s1');
    w.posted[0] = { ...w.posted[0]!, deviceId: owner.deviceId };
    await w.read();
    expect(w.started).toEqual([]);
    expect(w.answers).toEqual([]);
  });

  it('refuses a request signed by a device that is not an enrolled device of the account', async () => {
    const unknown = world();
    await unknown.strangerPart.ask('s1');
    await unknown.read();
    const revoked = world({ desktopStatus: 'revoked' });
    await revoked.asker.ask('s1');
    await revoked.read();
    expect([...unknown.started, ...revoked.started]).toEqual([]);
  });

  it('refuses a request asked at an earlier generation, or too long ago', async () => {
    const stale = world({ generation: 2 });
    await stale.asker.ask('s1');
    await stale.read();
    let now = NOW;
    const old = world({ clock: () => now });
    await old.asker.ask('s1');
    now += MOVE_HERE_MAX_AGE_MS + 1;
    await old.read();
    expect([...stale.started, ...old.started]).toEqual([]);
  });

  it('hands a post that is not a Move here request (a permission answer) to the answers’ part, and one that opens as nothing', async () => {
    const w = world();
    const answer = seal.sealJson({ answerId: 'a1' }, { kind: 'permission-answer', sessionId: 's1' });
    w.posted.push({ sessionId: 's1', seq: 1, generation: 1, deviceId: desktop.deviceId, sealedBody: answer, createdAt: NOW });
    await w.read();
    expect(w.answers).toEqual([{ answerId: 'a1' }]);
    // A request sealed for another session does not open in this one's log.
    await w.asker.ask('s1');
    w.posted.push({ ...w.posted[1]!, sessionId: 's2', seq: 3 });
    await w.read('s2');
    expect(w.answers).toEqual([{ answerId: 'a1' }, undefined]);
    expect(w.started).toEqual([]);
  });

  it('says at once when the owner is offline, and posts nothing', async () => {
    const w = world({ online: false });
    const asked = await w.asker.ask('s1');
    expect(asked.ok ? 'asked' : asked.code).toBe('source_offline');
    expect(w.posted).toEqual([]);
  });
});
