import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device, WrappedKey } from '../../shared/api/devices.ts';
import { loadOrCreateIdentity } from '../crypto/device-identity.ts';
import { checkpointContext, envelopeKeyVersion, seal, unseal } from '../crypto/envelope.ts';
import { generateAdk, KeyRing } from '../crypto/key-ring.ts';
import { wrapAdk } from '../crypto/key-wrap.ts';
import { memorySecretStore } from '../crypto/secret-store.ts';
import type { EnrollmentBackend } from './enrollment-backend.ts';
import { refreshKeyRing, revokeDevice, rotateAdk } from './key-distribution.ts';
import { loadProfile, type Profile } from './profile.ts';
import { firstDevice, joinedDevice, must, startEnrollmentWorld, type EnrollmentWorld } from '../../dev-env/enrollment-fixture.ts';

let world: EnrollmentWorld;
beforeAll(async () => {
  world = await startEnrollmentWorld();
});
afterAll(async () => {
  await world?.close();
});

const ctx = (accountId: string, handoffId: string) => checkpointContext(accountId, 'session-ssssssssssss', handoffId);

describe('rotation, refresh and revocation (real backend)', () => {
  it('rotates to a new version every enrolled device picks up, and old bodies still open', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    const account = laptop.info.accountId!;
    const old = seal(laptop.ring, ctx(account, 'handoff-old000000000'), Buffer.from('before'));
    expect(must(await rotateAdk(laptop, world.backendOf(laptop)))).toEqual({ keyVersion: 2 });
    expect(must(await refreshKeyRing(desktop, world.backendOf(desktop))).added).toEqual([2]);
    const fresh = seal(laptop.ring, ctx(account, 'handoff-new000000000'), Buffer.from('after'));
    expect(envelopeKeyVersion(fresh)).toBe(2);
    expect(unseal(desktop.ring, ctx(account, 'handoff-new000000000'), fresh)).toMatchObject({ ok: true, value: { keyVersion: 2 } });
    expect(unseal(desktop.ring, ctx(account, 'handoff-old000000000'), old)).toMatchObject({ ok: true, value: { keyVersion: 1 } });
    const reloaded = loadProfile(desktop.dir);
    expect(reloaded.ok && reloaded.value.ring.versions()).toEqual([1, 2]);
  });

  it('locks a revoked device out: its requests are refused, and the revoke rotated, so it cannot open what is sealed after', async () => {
    const laptop = await firstDevice(world);
    const phone = await joinedDevice(world, laptop, 'phone');
    const account = laptop.info.accountId!;
    const revoked = must(await revokeDevice(laptop, world.backendOf(laptop), phone.identity.deviceId));
    expect(revoked.device.status).toBe('revoked');
    expect(revoked.keyVersion).toBe(2);
    expect(await world.backendOf(phone).listDevices()).toMatchObject({ ok: false, code: 'device_revoked' });
    expect(await refreshKeyRing(phone, world.backendOf(phone))).toMatchObject({ ok: false, code: 'device_revoked' });
    expect(laptop.ring.newest()).toBe(2);
    const after = seal(laptop.ring, ctx(account, 'handoff-after0000000'), Buffer.from('secret plan'));
    expect(unseal(phone.ring, ctx(account, 'handoff-after0000000'), after)).toMatchObject({ ok: false, code: 'key_version_missing' });
    const keys = must(await world.backendOf(laptop).getKeys());
    expect(keys.currentVersion).toBe(2);
  });

  it('finishes a revoke whose rotation did not happen: the next device to fetch the keys rotates, once', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    const phone = await joinedDevice(world, laptop, 'phone');
    const account = laptop.info.accountId!;
    // The revoke reached the backend, the revoking device's rotation did not (it crashed, or lost the network).
    must(await world.backendOf(laptop).revokeDevice(phone.identity.deviceId));
    expect(must(await world.backendOf(desktop).getKeys()).rotationDue).toBe(true);
    expect(must(await refreshKeyRing(desktop, world.backendOf(desktop))).added).toEqual([2]);
    expect(must(await refreshKeyRing(laptop, world.backendOf(laptop)))).toEqual({ added: [2], rejected: [] });
    expect(must(await world.backendOf(laptop).getKeys())).toMatchObject({ currentVersion: 2, rotationDue: false });
    const after = seal(desktop.ring, ctx(account, 'handoff-after0000000'), Buffer.from('secret plan'));
    expect(unseal(phone.ring, ctx(account, 'handoff-after0000000'), after)).toMatchObject({ ok: false, code: 'key_version_missing' });
    expect(unseal(laptop.ring, ctx(account, 'handoff-after0000000'), after)).toMatchObject({ ok: true });
  });

  it('recovers a lost key-ring cache from the wraps on the backend, the self-wrap of account creation included', async () => {
    const laptop = await firstDevice(world);
    must(await rotateAdk(laptop, world.backendOf(laptop)));
    const original = laptop.ring;
    laptop.ring = new KeyRing();
    expect(must(await refreshKeyRing(laptop, world.backendOf(laptop))).added).toEqual([1, 2]);
    for (const v of [1, 2]) expect(laptop.ring.get(v)?.equals(original.get(v)!)).toBe(true);
  });

  it('refuses to pull keys the wrapping device is not trusted for', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    must(await rotateAdk(laptop, world.backendOf(laptop)));
    must(await revokeDevice(desktop, world.backendOf(desktop), laptop.identity.deviceId));
    // The laptop is revoked now, so its wrap of version 2 is no longer trusted by the desktop.
    const report = must(await refreshKeyRing(desktop, world.backendOf(desktop)));
    expect(report.added).toEqual([]);
    expect(report.rejected).toMatchObject([{ keyVersion: 2, wrappedBy: laptop.identity.deviceId }]);
    expect(desktop.ring.has(2)).toBe(false);
  });

  it('refuses to revoke itself and needs an enrolled profile', async () => {
    const laptop = await firstDevice(world);
    expect(await revokeDevice(laptop, world.backendOf(laptop), laptop.identity.deviceId)).toMatchObject({ ok: false, code: 'forbidden' });
    laptop.info = { ...laptop.info, status: 'pending' };
    expect(await rotateAdk(laptop, world.backendOf(laptop))).toMatchObject({ ok: false, code: 'not_enrolled' });
  });

  it('after joins down a chain (laptop invites desktop, desktop invites phone), rotations by either end reach every device', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    const phone = await joinedDevice(world, desktop, 'phone');
    // The phone's anchors came with the desktop's invite: the desktop and the desktop's own anchor, the laptop.
    expect(phone.info.trusted.map((t) => t.deviceId)).toEqual([desktop.identity.deviceId, laptop.identity.deviceId]);
    expect(must(await rotateAdk(laptop, world.backendOf(laptop))).keyVersion).toBe(2);
    for (const device of [desktop, phone])
      expect(must(await refreshKeyRing(device, world.backendOf(device)))).toEqual({ added: [2], rejected: [] });
    expect(must(await rotateAdk(phone, world.backendOf(phone))).keyVersion).toBe(3);
    for (const device of [laptop, desktop])
      expect(must(await refreshKeyRing(device, world.backendOf(device)))).toEqual({ added: [3], rejected: [] });
    for (const device of [laptop, desktop, phone]) expect(device.ring.get(3)?.equals(phone.ring.get(3)!)).toBe(true);
  });

  it('keeps a device in rotations after the device that invited it is revoked', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    const phone = await joinedDevice(world, desktop, 'phone');
    expect(must(await revokeDevice(laptop, world.backendOf(laptop), desktop.identity.deviceId)).keyVersion).toBe(2);
    expect(must(await refreshKeyRing(phone, world.backendOf(phone)))).toEqual({ added: [2], rejected: [] });
    expect(await world.backendOf(desktop).getKeys()).toMatchObject({ ok: false, code: 'device_revoked' });
  });
});

/** The real backend's port, with a device (and optionally its wraps) the backend made up added to what it serves. */
function injecting(real: EnrollmentBackend, device: Device, wraps: WrappedKey[], rotations: WrappedKey[][]): EnrollmentBackend {
  return {
    ...real,
    listDevices: async () => {
      const listed = await real.listDevices();
      return listed.ok ? { ok: true, value: [...listed.value, device] } : listed;
    },
    getKeys: async () => {
      const keys = await real.getKeys();
      return keys.ok
        ? {
            ok: true,
            value: {
              currentVersion: Math.max(keys.value.currentVersion, ...wraps.map((w) => w.keyVersion)),
              keys: [...keys.value.keys, ...wraps],
            },
          }
        : keys;
    },
    rotateKeys: (keyVersion, wrappedKeys) => {
      rotations.push(wrappedKeys);
      return real.rotateKeys(keyVersion, wrappedKeys);
    },
  };
}

describe('a backend that injects a device (real backend underneath)', () => {
  const intruder = loadOrCreateIdentity(memorySecretStore());
  const injected = (laptop: Profile): Device => ({
    id: intruder.deviceId,
    accountId: laptop.info.accountId!,
    name: 'injected',
    status: 'enrolled',
    ...intruder.keys,
    enrolledAt: 1,
    revokedAt: null,
    lastSeenAt: null,
    sealedCapabilities: null,
    keyVersions: [1],
  });

  it('refuses an ADK wrap made by a device that has no enrollment statement from a trusted device', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    const account = laptop.info.accountId!;
    const planted: WrappedKey = {
      keyVersion: 2,
      deviceId: desktop.identity.deviceId,
      wrappedBy: intruder.deviceId,
      wrapped: wrapAdk(
        intruder,
        { deviceId: desktop.identity.deviceId, agreementPublicKey: desktop.identity.keys.agreementPublicKey },
        account,
        2,
        generateAdk(),
      ),
    };
    const report = must(await refreshKeyRing(desktop, injecting(world.backendOf(desktop), injected(laptop), [planted], [])));
    expect(report.added).toEqual([]);
    expect(report.rejected).toMatchObject([{ keyVersion: 2, wrappedBy: intruder.deviceId }]);
    expect(desktop.ring.has(2)).toBe(false);
    expect(seal(desktop.ring, ctx(account, 'handoff-plant0000000'), Buffer.from('x')).readUInt32BE(3)).toBe(1);
  });

  it('rotates without wrapping the new version for the injected device', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    const rotations: WrappedKey[][] = [];
    must(await rotateAdk(laptop, injecting(world.backendOf(laptop), injected(laptop), [], rotations)));
    expect(rotations.map((r) => r.map((w) => w.deviceId).sort())).toEqual([[laptop.identity.deviceId, desktop.identity.deviceId].sort()]);
    expect(must(await refreshKeyRing(desktop, world.backendOf(desktop))).added).toEqual([2]);
  });
});
