/**
 * Invites and joins under a hostile newcomer: the backend caps an invite's lifetime, keeps at most one
 * pending join request per invite and lets it expire with the invite. Real HTTP, on SQLite and PostgreSQL, fake clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../backend.ts';
import {
  askToJoin as askToJoinAccount,
  createTestAccount,
  newId,
  newTestDevice,
  opaque,
  type TestDevice,
} from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

let now = Date.UTC(2026, 11, 1, 9, 0, 0);
const clock = () => now;
let storage: TestStorage;
let backend: RunningBackend;
let owner: TestDevice;
let accountId: string;

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-invites');
    backend = await startBackend({ ...storage.options, clock });
    owner = newTestDevice(backend.url, 'laptop', clock);
    ({ accountId } = await createTestAccount(owner));
  });

  afterAll(async () => {
    await backend.close();
    storage.cleanup();
  });

  const MINUTE = 60_000;

  async function invite(ttlMs?: number): Promise<string> {
    const inviteId = newId();
    const made = await owner.client.call('createInvite', { body: ttlMs === undefined ? { inviteId } : { inviteId, ttlMs } });
    if (!made.ok) throw new Error(made.code);
    return inviteId;
  }

  const askToJoin = (device: TestDevice, inviteId: string) => askToJoinAccount(device, accountId, inviteId);

  /** Rows in the devices table of the account, by status, read straight from the database. */
  async function deviceRows(): Promise<Record<string, number>> {
    const rows = await storage.rows('SELECT status, COUNT(*) AS n FROM devices WHERE account_id = ? GROUP BY status', [accountId]);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  const pendingListed = async () => {
    const devices = await owner.client.call('listDevices');
    if (!devices.ok) throw new Error(devices.code);
    return devices.value.devices.filter((d) => d.status === 'pending').map((d) => d.id);
  };

  describe('invite lifetime', () => {
    it('gives an invite 15 minutes by default and up to an hour when asked, from the backend clock', async () => {
      const byDefault = await owner.client.call('createInvite', { body: { inviteId: newId() } });
      expect(byDefault.ok && byDefault.value.invite.expiresAt - now).toBe(15 * MINUTE);
      const hour = await owner.client.call('createInvite', { body: { inviteId: newId(), ttlMs: 60 * MINUTE } });
      expect(hour.ok && hour.value.invite.expiresAt - now).toBe(60 * MINUTE);
    });

    it('refuses a longer lifetime with a clear code instead of shortening it, and registers nothing', async () => {
      for (const ttlMs of [60 * MINUTE + 1, 10 * 365 * 24 * 60 * MINUTE]) {
        const inviteId = newId();
        const refused = await owner.client.call('createInvite', { body: { inviteId, ttlMs } });
        expect(!refused.ok && [refused.status, refused.code, refused.details]).toEqual([
          400,
          'invite_lifetime_too_long',
          { ttlMs, limitMs: 60 * MINUTE },
        ]);
        const joined = await askToJoin(newTestDevice(backend.url, 'newcomer', clock), inviteId);
        expect(!joined.ok && joined.code).toBe('invite_invalid');
      }
    });
  });

  describe('join requests on one invite', () => {
    it('keeps one pending request however many arrive at once: 30 bogus requests make one pending device', async () => {
      const before = await deviceRows();
      const inviteId = await invite();
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => askToJoin(newTestDevice(backend.url, `bogus ${i}`, clock), inviteId)),
      );
      expect(answers.filter((a) => a.ok)).toHaveLength(1);
      expect(answers.filter((a) => !a.ok).map((a) => !a.ok && [a.status, a.code])).toEqual(Array(29).fill([409, 'join_pending']));
      const pending = await owner.client.call('listJoinRequests', { query: { status: 'pending' } });
      expect(pending.ok && pending.value.joinRequests.filter((j) => j.inviteId === inviteId)).toHaveLength(1);
      expect(await deviceRows()).toEqual({ ...before, pending: (before.pending ?? 0) + 1 });
      // The enrolled device still checks the proof and turns it down; its device leaves the list.
      const first = answers.find((a) => a.ok)!;
      if (!first.ok) throw new Error('unreachable');
      const rejected = await owner.client.call('rejectJoinRequest', {
        params: { joinRequestId: first.value.joinRequest.id },
        body: { reason: 'the join proof does not match the invite secret' },
      });
      expect(rejected.ok && rejected.value.joinRequest.status).toBe('rejected');
      expect(await pendingListed()).not.toContain(first.value.joinRequest.device.id);
      // Then one more device may ask on the same live invite.
      const next = newTestDevice(backend.url, 'next', clock);
      const asked = await askToJoin(next, inviteId);
      expect(asked.ok && asked.value.joinRequest.status).toBe('pending');
      expect(await pendingListed()).toContain(next.id);
    });

    it('gives the waiting device its own request back when it asks again (a retry after a lost answer)', async () => {
      const inviteId = await invite();
      const device = newTestDevice(backend.url, 'retrying', clock);
      const first = await askToJoin(device, inviteId);
      const again = await askToJoin(device, inviteId);
      expect(first.ok && again.ok && again.value.joinRequest.id).toBe(first.ok && first.value.joinRequest.id);
    });

    it('expires the pending request with its invite: turned down, unlisted, and no longer approvable', async () => {
      const inviteId = await invite(5 * MINUTE);
      const device = newTestDevice(backend.url, 'late', clock);
      const asked = await askToJoin(device, inviteId);
      if (!asked.ok) throw new Error(asked.code);
      const joinRequestId = asked.value.joinRequest.id;
      now += 5 * MINUTE;
      const approve = await owner.client.call('approveJoinRequest', {
        params: { joinRequestId },
        body: { wrappedKeys: [{ keyVersion: 1, deviceId: device.id, wrappedBy: owner.id, wrapped: opaque() }] },
      });
      expect(!approve.ok && [approve.status, approve.code]).toEqual([410, 'invite_expired']);
      expect(await backend.store.expireJoinRequests(now)).toBeGreaterThanOrEqual(1);
      const seen = await device.client.call('getJoinRequest', { params: { joinRequestId } });
      expect(seen.ok && [seen.value.joinRequest.status, seen.value.joinRequest.reason]).toEqual(['rejected', 'the invite expired']);
      expect(await pendingListed()).not.toContain(device.id);
      const other = await askToJoin(newTestDevice(backend.url, 'later still', clock), inviteId);
      expect(!other.ok && other.code).toBe('invite_expired');
    });
  });
});
