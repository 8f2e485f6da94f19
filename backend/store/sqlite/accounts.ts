/** Accounts, devices, invites, join requests and wrapped keys in SQLite. */
import type Database from 'better-sqlite3';
import type { Device, JoinRequest, WrappedKey } from '../../../shared/api/devices.ts';
import type { AccountStore } from '../store.ts';
import { refuse, toDevice, toInvite, toJoinRequest, type DeviceRow, type InviteRow, type JoinRequestRow } from '../rows.ts';
import type { Mutator } from './mutator.ts';

/** The account half of the SQLite store. */
export function sqliteAccountStore(db: Database.Database, mutate: Mutator): AccountStore {
  const q = {
    device: db.prepare('SELECT * FROM devices WHERE id = ?'),
    devices: db.prepare('SELECT * FROM devices WHERE account_id = ? ORDER BY rowid'),
    // A pending device belongs in the account's list only while its join request waits for a decision.
    members: db.prepare(`SELECT * FROM devices WHERE account_id = ? AND (status != 'pending'
      OR id IN (SELECT device_id FROM join_requests WHERE account_id = devices.account_id AND status = 'pending')) ORDER BY rowid`),
    insertAccount: db.prepare('INSERT INTO accounts (id, current_key_version, created_at) VALUES (?, 1, ?)'),
    insertDevice:
      db.prepare(`INSERT INTO devices (id, account_id, name, status, signing_public_key, agreement_public_key, enrolled_at, revoked_at,
      last_seen_at, sealed_capabilities, key_versions) VALUES (@id, @accountId, @name, @status, @signingPublicKey, @agreementPublicKey,
      @enrolledAt, @revokedAt, @lastSeenAt, @sealedCapabilities, @keyVersions)`),
    insertWrap: db.prepare('INSERT INTO wrapped_keys (device_id, key_version, account_id, wrapped_by, wrapped) VALUES (?, ?, ?, ?, ?)'),
    heartbeat: db.prepare('UPDATE devices SET last_seen_at = ?, sealed_capabilities = ?, key_versions = ? WHERE id = ?'),
    revoke: db.prepare("UPDATE devices SET status = 'revoked', revoked_at = ? WHERE id = ? AND status != 'revoked'"),
    enroll: db.prepare(
      "UPDATE devices SET status = 'enrolled', enrolled_at = ?, key_versions = ?, enrollment = ? WHERE id = ? AND status = 'pending'",
    ),
    invite: db.prepare('SELECT * FROM invites WHERE account_id = ? AND id = ?'),
    insertInvite: db.prepare(
      'INSERT INTO invites (id, account_id, inviter_device_id, expires_at, used_at, created_at) VALUES (?, ?, ?, ?, NULL, ?)',
    ),
    useInvite: db.prepare('UPDATE invites SET used_at = ? WHERE account_id = ? AND id = ? AND used_at IS NULL AND expires_at > ?'),
    join: db.prepare('SELECT * FROM join_requests WHERE id = ?'),
    pendingJoin: db.prepare("SELECT * FROM join_requests WHERE account_id = ? AND invite_id = ? AND status = 'pending'"),
    expireJoins: db.prepare(`UPDATE join_requests SET status = 'rejected', reason = 'the invite expired', decided_at = @now
      WHERE status = 'pending' AND EXISTS (SELECT 1 FROM invites i WHERE i.account_id = join_requests.account_id
        AND i.id = join_requests.invite_id AND i.expires_at <= @now)`),
    joins: db.prepare('SELECT * FROM join_requests WHERE account_id = ? ORDER BY created_at, rowid'),
    joinsByStatus: db.prepare('SELECT * FROM join_requests WHERE account_id = ? AND status = ? ORDER BY created_at, rowid'),
    insertJoin:
      db.prepare(`INSERT INTO join_requests (id, account_id, invite_id, inviter_device_id, device_id, proof, status, reason, created_at, decided_at)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', NULL, ?, NULL)`),
    decideJoin: db.prepare("UPDATE join_requests SET status = ?, reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'"),
    keyVersion: db.prepare('SELECT current_key_version AS v FROM accounts WHERE id = ?'),
    setKeyVersion: db.prepare('UPDATE accounts SET current_key_version = ? WHERE id = ? AND current_key_version = ?'),
    keys: db.prepare('SELECT * FROM wrapped_keys WHERE device_id = ? ORDER BY key_version'),
    revokedHoldsCurrent: db
      .prepare(
        `SELECT 1 FROM wrapped_keys w JOIN devices d ON d.id = w.device_id JOIN accounts a ON a.id = d.account_id
         WHERE a.id = ? AND d.status = 'revoked' AND w.key_version = a.current_key_version LIMIT 1`,
      )
      .pluck(),
  };

  const device = (id: string): Device | undefined => {
    const row = q.device.get(id) as DeviceRow | undefined;
    return row && toDevice(row);
  };
  const deviceParams = ({ enrollment: _opaque, ...d }: Device) => ({ ...d, keyVersions: JSON.stringify(d.keyVersions) });
  const joinRequest = (id: string): JoinRequest | undefined => {
    const row = q.join.get(id) as JoinRequestRow | undefined;
    return row && toJoinRequest(row, device(row.device_id)!);
  };
  const keyVersion = (accountId: string) => (q.keyVersion.get(accountId) as { v: number } | undefined)?.v ?? 0;
  const insertWraps = (accountId: string, wraps: WrappedKey[]) => {
    for (const w of wraps) q.insertWrap.run(w.deviceId, w.keyVersion, accountId, w.wrappedBy, w.wrapped);
  };

  return {
    async getDevice(deviceId) {
      return device(deviceId);
    },
    async createAccount({ accountId, device: d, wrapped, at }) {
      return mutate(undefined, () => {
        if (q.device.get(d.id)) refuse('already_exists', 'a device with this id already exists');
        q.insertAccount.run(accountId, at);
        q.insertDevice.run(deviceParams(d));
        insertWraps(accountId, [{ keyVersion: 1, deviceId: d.id, wrappedBy: d.id, wrapped }]);
        return device(d.id)!;
      });
    },
    async listDevices(accountId) {
      return (q.members.all(accountId) as DeviceRow[]).map(toDevice);
    },
    async heartbeat(deviceId, { at, sealedCapabilities, keyVersions }) {
      const result = await mutate(undefined, () => {
        q.heartbeat.run(at, sealedCapabilities, JSON.stringify(keyVersions), deviceId);
        return device(deviceId)!;
      });
      if (!result.ok) throw new Error(result.message);
      return result.value;
    },
    async revokeDevice(accountId, deviceId, at, idem) {
      return mutate(idem, () => {
        const d = device(deviceId);
        if (!d || d.accountId !== accountId) refuse('not_found', 'no such device');
        q.revoke.run(at, deviceId);
        return device(deviceId)!;
      });
    },
    async createInvite(invite, idem) {
      return mutate(idem, () => {
        if (q.invite.get(invite.accountId, invite.id)) refuse('already_exists', 'this account already has an invite with this id');
        q.insertInvite.run(invite.id, invite.accountId, invite.inviterDeviceId, invite.expiresAt, invite.createdAt);
        return toInvite(q.invite.get(invite.accountId, invite.id) as InviteRow);
      });
    },
    async getInvite(accountId, inviteId) {
      const row = q.invite.get(accountId, inviteId) as InviteRow | undefined;
      return row && toInvite(row);
    },
    async createJoinRequest({ joinRequestId, invite, device: d, proof, at }) {
      return mutate(undefined, () => {
        const current = q.invite.get(invite.accountId, invite.id) as InviteRow | undefined;
        if (!current || current.used_at !== null) refuse('invite_used', 'the invite has been used');
        if (current.expires_at <= at) refuse('invite_expired', 'the invite has expired');
        const waiting = q.pendingJoin.get(invite.accountId, invite.id) as JoinRequestRow | undefined;
        if (waiting?.device_id === d.id) return joinRequest(waiting.id)!;
        if (waiting) refuse('join_pending', 'another device is already waiting to join with this invite');
        if (q.device.get(d.id)) refuse('already_exists', 'a device with this id already exists');
        q.insertDevice.run(deviceParams(d));
        q.insertJoin.run(joinRequestId, invite.accountId, invite.id, invite.inviterDeviceId, d.id, proof, at);
        return joinRequest(joinRequestId)!;
      });
    },
    async getJoinRequest(joinRequestId) {
      return joinRequest(joinRequestId);
    },
    async listJoinRequests(accountId, status) {
      const rows = (status ? q.joinsByStatus.all(accountId, status) : q.joins.all(accountId)) as JoinRequestRow[];
      return rows.map((r) => toJoinRequest(r, device(r.device_id)!));
    },
    async approveJoinRequest({ joinRequestId, at, wrappedKeys, enrollment }, idem) {
      return mutate(idem, () => {
        const jr = joinRequest(joinRequestId);
        if (!jr) refuse('not_found', 'no such join request');
        if (jr.status !== 'pending') refuse('state_mismatch', `the join request is already ${jr.status}`);
        if (q.useInvite.run(at, jr.accountId, jr.inviteId, at).changes !== 1) {
          const invite = q.invite.get(jr.accountId, jr.inviteId) as InviteRow;
          if (invite.used_at !== null) refuse('invite_used', 'the invite has been used');
          refuse('invite_expired', 'the invite expired before the join was approved');
        }
        const versions = [...new Set(wrappedKeys.map((w) => w.keyVersion))].sort((a, b) => a - b);
        if (q.enroll.run(at, JSON.stringify(versions), enrollment ?? null, jr.device.id).changes !== 1)
          refuse('state_mismatch', 'the device is no longer pending');
        insertWraps(jr.accountId, wrappedKeys);
        q.decideJoin.run('approved', null, at, joinRequestId);
        return joinRequest(joinRequestId)!;
      });
    },
    async rejectJoinRequest({ joinRequestId, at, reason }, idem) {
      return mutate(idem, () => {
        if (q.decideJoin.run('rejected', reason, at, joinRequestId).changes !== 1)
          refuse('state_mismatch', 'the join request is no longer pending');
        return joinRequest(joinRequestId)!;
      });
    },
    async expireJoinRequests(now) {
      const result = await mutate(undefined, () => q.expireJoins.run({ now }).changes);
      if (!result.ok) throw new Error(result.message);
      return result.value;
    },
    async currentKeyVersion(accountId) {
      return keyVersion(accountId);
    },
    async revokedHoldsCurrentKey(accountId) {
      return q.revokedHoldsCurrent.get(accountId) !== undefined;
    },
    async getKeys(deviceId) {
      return (q.keys.all(deviceId) as { device_id: string; key_version: number; wrapped_by: string; wrapped: string }[]).map((r) => ({
        keyVersion: r.key_version,
        deviceId: r.device_id,
        wrappedBy: r.wrapped_by,
        wrapped: r.wrapped,
      }));
    },
    async rotateKeys({ accountId, keyVersion: next, wrappedKeys }, idem) {
      return mutate(idem, () => {
        if (q.setKeyVersion.run(next, accountId, next - 1).changes !== 1) {
          refuse('state_mismatch', `key version must be ${keyVersion(accountId) + 1}`, { currentVersion: keyVersion(accountId) });
        }
        const enrolled = (q.devices.all(accountId) as DeviceRow[]).filter((r) => r.status === 'enrolled').map((r) => r.id);
        const covered = new Set(wrappedKeys.map((w) => w.deviceId));
        const missing = enrolled.filter((id) => !covered.has(id));
        if (missing.length > 0)
          refuse('key_versions_incomplete', 'the new key version must be wrapped for every enrolled device', { missing });
        insertWraps(accountId, wrappedKeys);
        return next;
      });
    },
  };
}
