/**
 * The owner's checks on a Move here request, with real keys and real sealing: it starts the move
 * only for a request sealed for this session, signed by the enrolled device the backend says sent
 * it, at the session's generation now, recent and seen once; every other post is refused or, when
 * it is not a Move here request at all, left to the next reader.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Device } from '../../shared/api/devices.ts';
import type { SessionAnswer } from '../../shared/api/sessions.ts';
import { ok } from '../../shared/errors.ts';
import { KeyRing } from '../crypto/key-ring.ts';
import { identityFromKeys, type DeviceIdentity } from '../crypto/device-identity.ts';
import { ringSeal } from './adapters/seal-port.ts';
import { MOVE_HERE_MAX_AGE_MS, MoveHere } from './move-here.ts';

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

/** A pair of MoveHere parts: the desktop's, which asks, and the owner's, which applies; `posted` holds what reached the backend. */
function world(options: { generation?: number; desktopStatus?: Device['status']; clock?: () => number; online?: boolean } = {}) {
  const posted: SessionAnswer[] = [];
  const started: [string, string, string][] = [];
  const devices = new Map([owner, desktop].map((d) => [d.deviceId, device(d, d === desktop ? options.desktopStatus : 'enrolled')]));
  const directory = {
    get: (id: string) => devices.get(id),
    isOnline: () => options.online ?? true,
    nameOf: (id: string) => devices.get(id)?.name ?? id,
  };
  const session = { id: 's1', ownerDeviceId: owner.deviceId, generation: options.generation ?? 1 };
  const part = (self: DeviceIdentity, generation: number) =>
    new MoveHere({
      selfId: self.deviceId,
      state: { readSession: () => ({ ...session, generation }) as never },
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
      start: async (sessionId, target, initiator) => {
        started.push([sessionId, target, initiator]);
        return ok({ handoffId: 'h1' });
      },
      clock: options.clock ?? (() => NOW),
      log: () => undefined,
    });
  return { posted, started, asker: part(desktop, 1), owner: part(owner, session.generation), strangerPart: part(stranger, 1) };
}

describe("the owner's checks on Move here", () => {
  it('starts the move to the asking device, naming it as initiator, once', async () => {
    const w = world();
    expect(await w.asker.ask('s1')).toEqual({ ok: true, value: undefined });
    expect(await w.owner.apply('s1', w.posted[0]!)).toBe(true);
    expect(w.started).toEqual([['s1', desktop.deviceId, desktop.deviceId]]);
    // The same post read again (a replay) starts nothing.
    expect(await w.owner.apply('s1', { ...w.posted[0]!, seq: 2 })).toBe(true);
    expect(w.started).toHaveLength(1);
  });

  it('refuses a request that names another device than the one that sent it', async () => {
    const w = world();
    await w.asker.ask('s1');
    expect(await w.owner.apply('s1', { ...w.posted[0]!, deviceId: owner.deviceId })).toBe(true);
    expect(w.started).toEqual([]);
  });

  it('refuses a request signed by a device that is not an enrolled device of the account', async () => {
    const unknown = world();
    await unknown.strangerPart.ask('s1');
    await unknown.owner.apply('s1', unknown.posted[0]!);
    const revoked = world({ desktopStatus: 'revoked' });
    await revoked.asker.ask('s1');
    await revoked.owner.apply('s1', revoked.posted[0]!);
    expect([...unknown.started, ...revoked.started]).toEqual([]);
  });

  it('refuses a request asked at an earlier generation, or too long ago', async () => {
    const stale = world({ generation: 2 });
    await stale.asker.ask('s1');
    await stale.owner.apply('s1', stale.posted[0]!);
    let now = NOW;
    const old = world({ clock: () => now });
    await old.asker.ask('s1');
    now += MOVE_HERE_MAX_AGE_MS + 1;
    await old.owner.apply('s1', old.posted[0]!);
    expect([...stale.started, ...old.started]).toEqual([]);
  });

  it('leaves a post that is not a Move here request (a permission answer) to the next reader', async () => {
    const w = world();
    const answer = seal.sealJson({ answerId: 'a1' }, { kind: 'permission-answer', sessionId: 's1' });
    const post = { sessionId: 's1', seq: 1, generation: 1, deviceId: desktop.deviceId, sealedBody: answer, createdAt: NOW };
    expect(await w.owner.apply('s1', post)).toBe(false);
    // Sealed for another session, it does not open here either.
    await w.asker.ask('s1');
    expect(await w.owner.apply('s2', { ...w.posted[0]!, sessionId: 's2' })).toBe(false);
    expect(w.started).toEqual([]);
  });

  it('says at once when the owner is offline, and posts nothing', async () => {
    const w = world({ online: false });
    const asked = await w.asker.ask('s1');
    expect(asked.ok ? 'asked' : asked.code).toBe('source_offline');
    expect(w.posted).toEqual([]);
  });
});
