/**
 * Enrollment that devices can check without trusting the backend.
 *
 * When a device approves a join it signs an enrollment statement {accountId, deviceId,
 * signingPublicKey, agreementPublicKey, approvedBy, at} with its Ed25519 key. The backend keeps it as
 * an opaque field of the new device's record and serves it with the device list.
 *
 * Each device keeps trust anchors in its profile (`ProfileInfo.trusted`): the account's creator
 * anchors itself; a joiner anchors its inviter and the inviter's anchors, all carried by the invite
 * line, which reaches it out of band. A device listed by the backend is trusted only when a chain of
 * valid statements leads from an anchor to it; the keys it is trusted with are the keys its statement
 * names, never the backend's copy. So a device the backend injects (no statement from a trusted
 * device) is neither accepted as the signer of an ADK wrap nor sent a new ADK version at rotation.
 */
import { z } from 'zod';
import type { Device } from '../../shared/api/devices.ts';
import { Id } from '../../shared/api/common.ts';
import { fromBase64url, toBase64url } from '../crypto/base64url.ts';
import type { DeviceIdentity, DevicePublicKeys } from '../crypto/device-identity.ts';
import { verifySignature } from '../crypto/raw-keys.ts';

const Key = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

/** A device this one trusts, with the keys it trusts it with. */
export const TrustedDevice = z.strictObject({ deviceId: Id, signingPublicKey: Key, agreementPublicKey: Key });
export type TrustedDevice = z.infer<typeof TrustedDevice>;

const Statement = z.strictObject({
  v: z.literal(1),
  accountId: Id,
  deviceId: Id,
  signingPublicKey: Key,
  agreementPublicKey: Key,
  approvedBy: Id,
  at: z.number().int().nonnegative(),
  signature: z.string().regex(/^[A-Za-z0-9_-]{86}$/),
});
type Statement = z.infer<typeof Statement>;

function signedBytes(s: Omit<Statement, 'signature' | 'v'>): Buffer {
  return Buffer.from(
    ['BATON-ENROLLMENT-V1', s.accountId, s.deviceId, s.signingPublicKey, s.agreementPublicKey, s.approvedBy, String(s.at)].join('\n'),
    'utf8',
  );
}

/** The statement `approver` signs for a device it admits to `accountId`, encoded for the device record. */
export function signEnrollment(approver: DeviceIdentity, accountId: string, device: { id: string } & DevicePublicKeys, at: number): string {
  const fields = {
    accountId,
    deviceId: device.id,
    signingPublicKey: device.signingPublicKey,
    agreementPublicKey: device.agreementPublicKey,
    approvedBy: approver.deviceId,
    at,
  };
  const signature = toBase64url(Buffer.from(approver.sign(signedBytes(fields))));
  return toBase64url(Buffer.from(JSON.stringify({ v: 1, ...fields, signature } satisfies Statement), 'utf8'));
}

/** The statement of `encoded` when it is well formed; its signature is not checked here. */
function decodeStatement(encoded: string): Statement | null {
  const bytes = fromBase64url(encoded);
  if (bytes === null) return null;
  try {
    const parsed = Statement.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The statement's subject when it admits `device` to `accountId` and is signed by the key
 * `approverKey` gives for its approver at the statement's time.
 */
function admits(
  encoded: string,
  device: Device,
  accountId: string,
  approverKey: (deviceId: string, at: number) => string | undefined,
): TrustedDevice | null {
  const s = decodeStatement(encoded);
  if (s === null || s.accountId !== accountId || s.deviceId !== device.id || s.approvedBy === s.deviceId) return null;
  if (s.signingPublicKey !== device.signingPublicKey || s.agreementPublicKey !== device.agreementPublicKey) return null;
  const key = approverKey(s.approvedBy, s.at);
  const signature = fromBase64url(s.signature);
  if (key === undefined || signature === null || !verifySignature(key, signedBytes(s), signature)) return null;
  return { deviceId: s.deviceId, signingPublicKey: s.signingPublicKey, agreementPublicKey: s.agreementPublicKey };
}

/**
 * The devices of `devices` (enrolled ones only) this device can trust: its anchors, then every
 * device whose statement is signed by one already vouched for, until nothing changes. Keys come
 * from the anchors and the statements. A revoked device is never trusted itself, but statements it
 * signed before its revocation still link the devices it admitted (revoking an inviter does not
 * orphan its invitees; the backend refuses a revoked device's requests, so it cannot store newer
 * ones). The backend can only take trust away (list a device as revoked or leave it out), never grant it.
 */
export function verifiedDevices(
  devices: readonly Device[],
  accountId: string,
  anchors: readonly TrustedDevice[],
): Map<string, TrustedDevice> {
  const listed = new Map(devices.filter((d) => d.status !== 'pending').map((d) => [d.id, d] as const));
  const vouched = new Map(anchors.filter((a) => listed.has(a.deviceId)).map((a) => [a.deviceId, a] as const));
  const keyAt = (id: string, at: number) => {
    const device = listed.get(id);
    const until = device?.status === 'revoked' ? (device.revokedAt ?? 0) : Infinity;
    return at < until ? vouched.get(id)?.signingPublicKey : undefined;
  };
  for (let grew = true; grew;) {
    grew = false;
    for (const device of listed.values()) {
      if (vouched.has(device.id) || device.enrollment === undefined) continue;
      const admitted = admits(device.enrollment, device, accountId, keyAt);
      if (admitted !== null) {
        vouched.set(admitted.deviceId, admitted);
        grew = true;
      }
    }
  }
  return new Map([...vouched].filter(([id]) => listed.get(id)?.status === 'enrolled'));
}
