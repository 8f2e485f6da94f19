/** Accounts, invites, joins, revocation and key rotation over real HTTP against an in-process backend. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../backend.ts';
import {
  askToJoin as askToJoinAccount,
  createTestAccount,
  joinTestDevice,
  newId,
  newTestDevice,
  opaque,
  type TestDevice,
} from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

let now = Date.UTC(2026, 10, 30, 9, 0, 0);
const clock = () => now;
let storage: TestStorage;
let backend: RunningBackend;
let owner: TestDevice;
let accountId: string;

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-accounts');
    backend = await startBackend({ ...storage.options, clock });
    owner = newTestDevice(backend.url, 'laptop', clock);
    ({ accountId } = await createTestAccount(owner));
  });

  afterAll(async () => {
    await backend.close();
    storage.cleanup();
  });

  const keysOf = (d: TestDevice) => ({ signingPublicKey: d.signingPublicKey, agreementPublicKey: d.agreementPublicKey });

  async function invite(by: TestDevice, ttl = 60_000): Promise<string> {
    const inviteId = newId();
    const made = await by.client.call('createInvite', { body: { inviteId, ttlMs: ttl } });
    expect(made.ok && made.value.invite.inviterDeviceId).toBe(by.id);
    return inviteId;
  }

  const askToJoin = (device: TestDevice, inviteId: string) => askToJoinAccount(device, accountId, inviteId);

  describe('accounts and devices', () => {
    it('creates an account whose first device holds ADK version 1', async () => {
      const me = await owner.client.call('me');
      expect(me.ok && [me.value.device.status, me.value.device.keyVersions]).toEqual(['enrolled', [1]]);
      const keys = await owner.client.call('getKeys');
      expect(keys.ok && [keys.value.currentVersion, keys.value.keys.map((k) => [k.keyVersion, k.deviceId])]).toEqual([1, [[1, owner.id]]]);
      const again = await owner.client.call('createAccount', {
        body: { deviceId: owner.id, name: 'x', keys: keysOf(owner), wrapped: opaque() },
      });
      expect(!again.ok && again.code).toBe('already_exists');
    });

    it('refuses a join with an unknown, expired or used invite, or one whose inviter was revoked', async () => {
      const unknown = await askToJoin(newTestDevice(backend.url, 'a', clock), newId());
      expect(!unknown.ok && [unknown.status, unknown.code]).toEqual([403, 'invite_invalid']);

      const expiring = await invite(owner, 1000);
      now += 2000;
      const expired = await askToJoin(newTestDevice(backend.url, 'b', clock), expiring);
      expect(!expired.ok && [expired.status, expired.code]).toEqual([410, 'invite_expired']);

      const once = await invite(owner);
      const first = newTestDevice(backend.url, 'c', clock);
      const asked = await askToJoin(first, once);
      if (!asked.ok) throw new Error(asked.code);
      expect(
        (
          await owner.client.call('approveJoinRequest', {
            params: { joinRequestId: asked.value.joinRequest.id },
            body: { wrappedKeys: [{ keyVersion: 1, deviceId: first.id, wrappedBy: owner.id, wrapped: opaque() }] },
          })
        ).ok,
      ).toBe(true);
      const used = await askToJoin(newTestDevice(backend.url, 'd', clock), once);
      expect(!used.ok && [used.status, used.code]).toEqual([409, 'invite_used']);

      const inviter = newTestDevice(backend.url, 'e', clock);
      await joinTestDevice(owner, inviter);
      const orphan = await invite(inviter);
      expect((await owner.client.call('revokeDevice', { params: { deviceId: inviter.id }, body: {} })).ok).toBe(true);
      const refused = await askToJoin(newTestDevice(backend.url, 'f', clock), orphan);
      expect(!refused.ok && refused.code).toBe('invite_invalid');
    });

    it('pushes a join request to the account, lets only the inviter approve, and needs every key version', async () => {
      const inviteId = await invite(owner);
      const other = newTestDevice(backend.url, 'other', clock);
      await joinTestDevice(owner, other);
      const newcomer = newTestDevice(backend.url, 'newcomer', clock);
      const asked = await askToJoin(newcomer, inviteId);
      if (!asked.ok) throw new Error(asked.code);
      const joinRequestId = asked.value.joinRequest.id;
      const listed = await owner.client.call('listJoinRequests', { query: { status: 'pending' } });
      expect(listed.ok && listed.value.joinRequests.map((j) => j.id)).toContain(joinRequestId);

      const wraps = [{ keyVersion: 1, deviceId: newcomer.id, wrappedBy: other.id, wrapped: opaque() }];
      const notInviter = await other.client.call('approveJoinRequest', { params: { joinRequestId }, body: { wrappedKeys: wraps } });
      expect(!notInviter.ok && [notInviter.status, notInviter.code]).toEqual([403, 'forbidden']);

      const rotated = await owner.client.call('rotateKeys', {
        body: {
          keyVersion: 2,
          wrappedKeys: (await enrolledIds()).map((id) => ({ keyVersion: 2, deviceId: id, wrappedBy: owner.id, wrapped: opaque() })),
        },
      });
      expect(rotated.ok && rotated.value.currentVersion).toBe(2);
      const partial = await owner.client.call('approveJoinRequest', {
        params: { joinRequestId },
        body: { wrappedKeys: [{ keyVersion: 1, deviceId: newcomer.id, wrappedBy: owner.id, wrapped: opaque() }] },
      });
      expect(!partial.ok && [partial.status, partial.code, partial.details?.missing]).toEqual([422, 'key_versions_incomplete', [2]]);
      expect((await newcomer.client.call('me')).ok && (await newcomer.client.call('listSessions')).ok).toBe(false);

      const full = [1, 2].map((keyVersion) => ({ keyVersion, deviceId: newcomer.id, wrappedBy: owner.id, wrapped: opaque() }));
      const approved = await owner.client.call('approveJoinRequest', { params: { joinRequestId }, body: { wrappedKeys: full } });
      expect(approved.ok && [approved.value.joinRequest.status, approved.value.joinRequest.device.status]).toEqual([
        'approved',
        'enrolled',
      ]);
      const keys = await newcomer.client.call('getKeys');
      expect(keys.ok && keys.value.keys.map((k) => k.keyVersion)).toEqual([1, 2]);
      expect((await newcomer.client.call('listSessions')).ok).toBe(true);
    });

    it('rotates only to the next version and only when every enrolled device gets the new key', async () => {
      const ids = await enrolledIds();
      const current = await owner.client.call('getKeys');
      if (!current.ok) throw new Error(current.code);
      const next = current.value.currentVersion + 1;
      const wrap = (id: string, keyVersion = next) => ({ keyVersion, deviceId: id, wrappedBy: owner.id, wrapped: opaque() });
      const skip = await owner.client.call('rotateKeys', {
        body: { keyVersion: next + 1, wrappedKeys: ids.map((id) => wrap(id, next + 1)) },
      });
      expect(!skip.ok && skip.code).toBe('state_mismatch');
      const incomplete = await owner.client.call('rotateKeys', {
        body: { keyVersion: next, wrappedKeys: ids.slice(1).map((id) => wrap(id)) },
      });
      expect(!incomplete.ok && [incomplete.status, incomplete.code]).toEqual([422, 'key_versions_incomplete']);
      const after = await owner.client.call('getKeys');
      expect(after.ok && after.value.currentVersion).toBe(current.value.currentVersion);
      const done = await owner.client.call('rotateKeys', { body: { keyVersion: next, wrappedKeys: ids.map((id) => wrap(id)) } });
      expect(done.ok && [done.value.currentVersion, done.value.keys.at(-1)?.keyVersion]).toEqual([next, next]);
    });

    it('records a heartbeat: last seen, sealed capabilities and held key versions', async () => {
      now += 5000;
      const beat = await owner.client.call('heartbeat', { body: { sealedCapabilities: 'c2VhbGVk', keyVersions: [1, 2, 3] } });
      expect(beat.ok && beat.value.serverTime).toBe(now);
      const devices = await owner.client.call('listDevices');
      const me = devices.ok ? devices.value.devices.find((d) => d.id === owner.id) : undefined;
      expect([me?.lastSeenAt, me?.sealedCapabilities, me?.keyVersions]).toEqual([now, 'c2VhbGVk', [1, 2, 3]]);
    });
  });

  async function enrolledIds(): Promise<string[]> {
    const devices = await owner.client.call('listDevices');
    if (!devices.ok) throw new Error(devices.code);
    return devices.value.devices.filter((d) => d.status === 'enrolled').map((d) => d.id);
  }
});
