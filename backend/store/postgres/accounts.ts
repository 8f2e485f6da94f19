/** Accounts, devices, invites, join requests and wrapped keys in PostgreSQL (the same rules as sqlite/accounts.ts). */
import type pg from 'pg';
import type { Device, JoinRequest, WrappedKey } from '../../../shared/api/devices.ts';
import type { AccountStore } from '../store.ts';
import { refuse, toDevice, toInvite, toJoinRequest, type DeviceRow, type InviteRow, type JoinRequestRow } from '../rows.ts';
import { row, rows, type PgMutator, type Sql } from './tx.ts';

const DEVICE_COLUMNS = `id, account_id, name, status, signing_public_key, agreement_public_key, enrolled_at, revoked_at, last_seen_at,
  sealed_capabilities, key_versions, enrollment`;

const device = async (sql: Sql, id: string): Promise<Device | undefined> => {
  const r = await row<DeviceRow>(sql, `SELECT ${DEVICE_COLUMNS} FROM devices WHERE id = $1`, [id]);
  return r && toDevice(r);
};
const invite = (sql: Sql, accountId: string, id: string) =>
  row<InviteRow>(sql, 'SELECT * FROM invites WHERE account_id = $1 AND id = $2', [accountId, id]);
const joinRequest = async (sql: Sql, id: string): Promise<JoinRequest | undefined> => {
  const r = await row<JoinRequestRow>(sql, 'SELECT * FROM join_requests WHERE id = $1', [id]);
  return r && toJoinRequest(r, (await device(sql, r.device_id))!);
};
const keyVersion = async (sql: Sql, accountId: string) =>
  (await row<{ v: number }>(sql, 'SELECT current_key_version AS v FROM accounts WHERE id = $1', [accountId]))?.v ?? 0;

const insertDevice = (sql: Sql, d: Device) =>
  sql.query(
    `INSERT INTO devices (id, account_id, name, status, signing_public_key, agreement_public_key, enrolled_at, revoked_at, last_seen_at,
      sealed_capabilities, key_versions) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      d.id,
      d.accountId,
      d.name,
      d.status,
      d.signingPublicKey,
      d.agreementPublicKey,
      d.enrolledAt,
      d.revokedAt,
      d.lastSeenAt,
      d.sealedCapabilities,
      JSON.stringify(d.keyVersions),
    ],
  );

async function insertWraps(sql: Sql, accountId: string, wraps: WrappedKey[]): Promise<void> {
  if (wraps.length === 0) return;
  await sql.query(
    `INSERT INTO wrapped_keys (device_id, key_version, account_id, wrapped_by, wrapped)
     SELECT d, v, $1, b, w FROM unnest($2::text[], $3::int[], $4::text[], $5::text[]) AS t(d, v, b, w)`,
    [accountId, wraps.map((w) => w.deviceId), wraps.map((w) => w.keyVersion), wraps.map((w) => w.wrappedBy), wraps.map((w) => w.wrapped)],
  );
}

/** The account half of the PostgreSQL store. */
export function postgresAccountStore(pool: pg.Pool, mutate: PgMutator): AccountStore {
  return {
    getDevice: (deviceId) => device(pool, deviceId),
    createAccount({ accountId, device: d, wrapped, at }) {
      return mutate(undefined, async (sql) => {
        if (await device(sql, d.id)) refuse('already_exists', 'a device with this id already exists');
        await sql.query('INSERT INTO accounts (id, current_key_version, created_at) VALUES ($1, 1, $2)', [accountId, at]);
        await insertDevice(sql, d);
        await insertWraps(sql, accountId, [{ keyVersion: 1, deviceId: d.id, wrappedBy: d.id, wrapped }]);
        return (await device(sql, d.id))!;
      });
    },
    async listDevices(accountId) {
      // A pending device belongs in the account's list only while its join request waits for a decision.
      const found = await rows<DeviceRow>(
        pool,
        `SELECT ${DEVICE_COLUMNS} FROM devices WHERE account_id = $1 AND (status != 'pending'
          OR id IN (SELECT device_id FROM join_requests WHERE account_id = $1 AND status = 'pending')) ORDER BY seq`,
        [accountId],
      );
      return found.map(toDevice);
    },
    async heartbeat(deviceId, { at, sealedCapabilities, keyVersions }) {
      const r = await row<DeviceRow>(
        pool,
        `UPDATE devices SET last_seen_at = $1, sealed_capabilities = $2, key_versions = $3 WHERE id = $4 RETURNING ${DEVICE_COLUMNS}`,
        [at, sealedCapabilities, JSON.stringify(keyVersions), deviceId],
      );
      if (!r) throw new Error('no such device');
      return toDevice(r);
    },
    revokeDevice(accountId, deviceId, at, idem) {
      return mutate(idem, async (sql) => {
        const d = await device(sql, deviceId);
        if (!d || d.accountId !== accountId) refuse('not_found', 'no such device');
        await sql.query("UPDATE devices SET status = 'revoked', revoked_at = $1 WHERE id = $2 AND status != 'revoked'", [at, deviceId]);
        return (await device(sql, deviceId))!;
      });
    },
    createInvite(record, idem) {
      return mutate(idem, async (sql) => {
        if (await invite(sql, record.accountId, record.id)) refuse('already_exists', 'this account already has an invite with this id');
        await sql.query(
          'INSERT INTO invites (id, account_id, inviter_device_id, expires_at, used_at, created_at) VALUES ($1, $2, $3, $4, NULL, $5)',
          [record.id, record.accountId, record.inviterDeviceId, record.expiresAt, record.createdAt],
        );
        return toInvite((await invite(sql, record.accountId, record.id))!);
      });
    },
    async getInvite(accountId, inviteId) {
      const r = await invite(pool, accountId, inviteId);
      return r && toInvite(r);
    },
    createJoinRequest({ joinRequestId, invite: inv, device: d, proof, at }) {
      return mutate(undefined, async (sql) => {
        // The invite row is locked: joins on one invite queue here and see each other.
        const current = await row<InviteRow>(sql, 'SELECT * FROM invites WHERE account_id = $1 AND id = $2 FOR UPDATE', [
          inv.accountId,
          inv.id,
        ]);
        if (!current || current.used_at !== null) refuse('invite_used', 'the invite has been used');
        if (current.expires_at <= at) refuse('invite_expired', 'the invite has expired');
        const waiting = await row<JoinRequestRow>(
          sql,
          "SELECT * FROM join_requests WHERE account_id = $1 AND invite_id = $2 AND status = 'pending'",
          [inv.accountId, inv.id],
        );
        if (waiting?.device_id === d.id) return (await joinRequest(sql, waiting.id))!;
        if (waiting) refuse('join_pending', 'another device is already waiting to join with this invite');
        if (await device(sql, d.id)) refuse('already_exists', 'a device with this id already exists');
        await insertDevice(sql, d);
        await sql.query(
          `INSERT INTO join_requests (id, account_id, invite_id, inviter_device_id, device_id, proof, status, reason, created_at, decided_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'pending', NULL, $7, NULL)`,
          [joinRequestId, inv.accountId, inv.id, inv.inviterDeviceId, d.id, proof, at],
        );
        return (await joinRequest(sql, joinRequestId))!;
      });
    },
    getJoinRequest: (joinRequestId) => joinRequest(pool, joinRequestId),
    async listJoinRequests(accountId, status) {
      const found = status
        ? await rows<JoinRequestRow>(pool, 'SELECT * FROM join_requests WHERE account_id = $1 AND status = $2 ORDER BY created_at, seq', [
            accountId,
            status,
          ])
        : await rows<JoinRequestRow>(pool, 'SELECT * FROM join_requests WHERE account_id = $1 ORDER BY created_at, seq', [accountId]);
      return Promise.all(found.map(async (r) => toJoinRequest(r, (await device(pool, r.device_id))!)));
    },
    approveJoinRequest({ joinRequestId, at, wrappedKeys, enrollment }, idem) {
      return mutate(idem, async (sql) => {
        const jr = await joinRequest(sql, joinRequestId);
        if (!jr) refuse('not_found', 'no such join request');
        if (jr.status !== 'pending') refuse('state_mismatch', `the join request is already ${jr.status}`);
        const used = await sql.query(
          'UPDATE invites SET used_at = $1 WHERE account_id = $2 AND id = $3 AND used_at IS NULL AND expires_at > $1',
          [at, jr.accountId, jr.inviteId],
        );
        if (used.rowCount !== 1) {
          const current = (await invite(sql, jr.accountId, jr.inviteId))!;
          if (current.used_at !== null) refuse('invite_used', 'the invite has been used');
          refuse('invite_expired', 'the invite expired before the join was approved');
        }
        const versions = [...new Set(wrappedKeys.map((w) => w.keyVersion))].sort((a, b) => a - b);
        const enrolled = await sql.query(
          "UPDATE devices SET status = 'enrolled', enrolled_at = $1, key_versions = $2, enrollment = $3 WHERE id = $4 AND status = 'pending'",
          [at, JSON.stringify(versions), enrollment ?? null, jr.device.id],
        );
        if (enrolled.rowCount !== 1) refuse('state_mismatch', 'the device is no longer pending');
        await insertWraps(sql, jr.accountId, wrappedKeys);
        await sql.query("UPDATE join_requests SET status = 'approved', reason = NULL, decided_at = $1 WHERE id = $2", [at, joinRequestId]);
        return (await joinRequest(sql, joinRequestId))!;
      });
    },
    rejectJoinRequest({ joinRequestId, at, reason }, idem) {
      return mutate(idem, async (sql) => {
        const decided = await sql.query(
          "UPDATE join_requests SET status = 'rejected', reason = $1, decided_at = $2 WHERE id = $3 AND status = 'pending'",
          [reason, at, joinRequestId],
        );
        if (decided.rowCount !== 1) refuse('state_mismatch', 'the join request is no longer pending');
        return (await joinRequest(sql, joinRequestId))!;
      });
    },
    async expireJoinRequests(now) {
      const expired = await pool.query(
        `UPDATE join_requests j SET status = 'rejected', reason = 'the invite expired', decided_at = $1
         WHERE status = 'pending' AND EXISTS (SELECT 1 FROM invites i WHERE i.account_id = j.account_id AND i.id = j.invite_id
           AND i.expires_at <= $1)`,
        [now],
      );
      return expired.rowCount ?? 0;
    },
    currentKeyVersion: (accountId) => keyVersion(pool, accountId),
    async revokedHoldsCurrentKey(accountId) {
      const found = await row<{ one: number }>(
        pool,
        `SELECT 1 AS one FROM wrapped_keys w JOIN devices d ON d.id = w.device_id JOIN accounts a ON a.id = d.account_id
         WHERE a.id = $1 AND d.status = 'revoked' AND w.key_version = a.current_key_version LIMIT 1`,
        [accountId],
      );
      return found !== undefined;
    },
    async getKeys(deviceId) {
      const found = await rows<{ device_id: string; key_version: number; wrapped_by: string; wrapped: string }>(
        pool,
        'SELECT device_id, key_version, wrapped_by, wrapped FROM wrapped_keys WHERE device_id = $1 ORDER BY key_version',
        [deviceId],
      );
      return found.map((r) => ({ keyVersion: r.key_version, deviceId: r.device_id, wrappedBy: r.wrapped_by, wrapped: r.wrapped }));
    },
    rotateKeys({ accountId, keyVersion: next, wrappedKeys }, idem) {
      return mutate(idem, async (sql) => {
        const set = await sql.query('UPDATE accounts SET current_key_version = $1 WHERE id = $2 AND current_key_version = $3', [
          next,
          accountId,
          next - 1,
        ]);
        if (set.rowCount !== 1) {
          const current = await keyVersion(sql, accountId);
          refuse('state_mismatch', `key version must be ${current + 1}`, { currentVersion: current });
        }
        const enrolled = await rows<{ id: string }>(
          sql,
          "SELECT id FROM devices WHERE account_id = $1 AND status = 'enrolled' ORDER BY seq",
          [accountId],
        );
        const covered = new Set(wrappedKeys.map((w) => w.deviceId));
        const missing = enrolled.map((r) => r.id).filter((id) => !covered.has(id));
        if (missing.length > 0)
          refuse('key_versions_incomplete', 'the new key version must be wrapped for every enrolled device', { missing });
        await insertWraps(sql, accountId, wrappedKeys);
        return next;
      });
    },
  };
}
