import { describe, expect, it } from 'vitest';
import type { Device } from '../../shared/api/devices.ts';
import { loadOrCreateIdentity, type DeviceIdentity } from '../crypto/device-identity.ts';
import { memorySecretStore } from '../crypto/secret-store.ts';
import { signEnrollment, verifiedDevices, type TrustedDevice } from './enrollment-statement.ts';

const ACCOUNT = 'account-aaaaaaaaaaaa';
const identity = (): DeviceIdentity => loadOrCreateIdentity(memorySecretStore());
const [root, second, third, intruder] = [identity(), identity(), identity(), identity()];
const anchor = (d: DeviceIdentity): TrustedDevice => ({ deviceId: d.deviceId, ...d.keys });

function record(d: DeviceIdentity, enrollment?: string, revokedAt: number | null = null): Device {
  return {
    id: d.deviceId,
    accountId: ACCOUNT,
    name: 'device',
    status: revokedAt === null ? 'enrolled' : 'revoked',
    ...d.keys,
    enrolledAt: 1,
    revokedAt,
    lastSeenAt: null,
    sealedCapabilities: null,
    keyVersions: [1],
    ...(enrollment === undefined ? {} : { enrollment }),
  };
}
const admittedBy = (approver: DeviceIdentity, d: DeviceIdentity, account = ACCOUNT, at = 5) =>
  signEnrollment(approver, account, { id: d.deviceId, ...d.keys }, at);

describe('verifiedDevices', () => {
  it('follows a chain of statements from an anchor, in any listing order, with the keys the statements name', () => {
    const devices = [record(third, admittedBy(second, third)), record(second, admittedBy(root, second)), record(root)];
    const trusted = verifiedDevices(devices, ACCOUNT, [anchor(root)]);
    expect([...trusted.keys()].sort()).toEqual([root, second, third].map((d) => d.deviceId).sort());
    expect(trusted.get(third.deviceId)).toEqual(anchor(third));
  });

  it("trusts the anchors of a joiner (its inviter and the inviter's anchors) and devices admitted by them", () => {
    const devices = [record(root), record(second, admittedBy(root, second)), record(third, admittedBy(second, third))];
    const trusted = verifiedDevices(devices, ACCOUNT, [anchor(third), anchor(second), anchor(root)]);
    expect(trusted.size).toBe(3);
  });

  it('does not trust a device the backend lists without a statement, or with one signed by an untrusted device', () => {
    const selfSigned = admittedBy(intruder, intruder);
    for (const listed of [record(intruder), record(intruder, selfSigned), record(intruder, admittedBy(third, intruder))]) {
      const trusted = verifiedDevices([record(root), record(second, admittedBy(root, second)), listed], ACCOUNT, [anchor(root)]);
      expect(trusted.has(intruder.deviceId)).toBe(false);
      expect(trusted.size).toBe(2);
    }
  });

  it('refuses a statement whose keys differ from the record, that names another account, or that was tampered with', () => {
    const genuine = admittedBy(root, second);
    const swapped: Device = { ...record(second, genuine), agreementPublicKey: intruder.keys.agreementPublicKey };
    const json = JSON.parse(Buffer.from(genuine, 'base64url').toString('utf8')) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...json, at: 6 })).toString('base64url');
    for (const listed of [
      swapped,
      record(second, admittedBy(root, second, 'account-otherotherot')),
      record(second, altered),
      record(second, 'not-a-statement'),
    ]) {
      expect(verifiedDevices([record(root), listed], ACCOUNT, [anchor(root)]).has(second.deviceId)).toBe(false);
    }
    expect(verifiedDevices([record(root), record(second, genuine)], ACCOUNT, [anchor(root)]).has(second.deviceId)).toBe(true);
  });

  it('lets the backend take trust away but not give it: revoked or unlisted anchors drop out, unlisted ones with their chains', () => {
    const devices = [record(root, undefined, 3), record(second, admittedBy(root, second))];
    expect(verifiedDevices(devices, ACCOUNT, [anchor(root)]).size).toBe(0);
    expect(verifiedDevices([record(second, admittedBy(root, second))], ACCOUNT, [anchor(root)]).size).toBe(0);
  });

  it('keeps devices a since-revoked device admitted before its revocation, but not ones it signed for after', () => {
    const devices = [
      record(root),
      record(second, admittedBy(root, second), 10),
      record(third, admittedBy(second, third, ACCOUNT, 9)),
      record(intruder, admittedBy(second, intruder, ACCOUNT, 10)),
    ];
    const trusted = verifiedDevices(devices, ACCOUNT, [anchor(root)]);
    expect([...trusted.keys()].sort()).toEqual([root.deviceId, third.deviceId].sort());
  });
});
