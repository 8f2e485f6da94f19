/** Accounts, devices, invites, join requests and wrapped account data keys (ADK). */
import { z } from 'zod';
import { B64, Id, Millis } from './common.ts';

export const DeviceStatus = z.enum(['pending', 'enrolled', 'revoked']);
export type DeviceStatus = z.infer<typeof DeviceStatus>;

/** The public half of a device identity, as the device presents it. */
export const DeviceKeys = z.strictObject({
  /** Ed25519 public key, raw 32 bytes, base64url. */
  signingPublicKey: B64(64),
  /** X25519 public key, raw 32 bytes, base64url. */
  agreementPublicKey: B64(64),
});

export const Device = z.strictObject({
  id: Id,
  accountId: Id,
  name: z.string().min(1).max(100),
  status: DeviceStatus,
  signingPublicKey: B64(64),
  agreementPublicKey: B64(64),
  enrolledAt: Millis.nullable(),
  revokedAt: Millis.nullable(),
  lastSeenAt: Millis.nullable(),
  /** The device's published capabilities, sealed under the ADK (repos it can open are session content). */
  sealedCapabilities: B64().nullable(),
  /** ADK versions the device holds (clear: version numbers only). */
  keyVersions: z.array(z.number().int().positive()).max(1000),
  /**
   * The enrollment statement the approving device signed for this device (opaque to the backend:
   * stored and served as given). Devices check it themselves; absent for the account's first device.
   */
  enrollment: B64(2048).optional(),
});
export type Device = z.infer<typeof Device>;

/** An ADK version wrapped for one device. The wrapping format belongs to the device side. */
export const WrappedKey = z.strictObject({
  keyVersion: z.number().int().positive(),
  deviceId: Id,
  /** The device that made the wrap. */
  wrappedBy: Id,
  wrapped: B64(4096),
});
export type WrappedKey = z.infer<typeof WrappedKey>;

/**
 * POST /v1/accounts — the first device creates the account. Signed with the new device's own key
 * (the backend verifies the signature against `device.signingPublicKey`).
 */
export const CreateAccountRequest = z.strictObject({
  deviceId: Id,
  name: z.string().min(1).max(100),
  keys: DeviceKeys,
  /** ADK version 1 wrapped to the device itself. */
  wrapped: B64(4096),
});
export const CreateAccountResponse = z.strictObject({ accountId: Id, device: Device });

/** How long an invite stays valid unless asked otherwise, and the most the backend allows. */
export const DEFAULT_INVITE_TTL_MS = 15 * 60 * 1000;
export const MAX_INVITE_TTL_MS = 60 * 60 * 1000;

/**
 * POST /v1/invites — an enrolled device registers an invite id (never its secret). The backend sets
 * the expiry from its own clock: `ttlMs` (default 15 minutes); a longer one than it allows is refused
 * (`invite_lifetime_too_long`), never shortened.
 */
export const CreateInviteRequest = z.strictObject({ inviteId: Id, ttlMs: z.number().int().positive().optional() });
export const Invite = z.strictObject({
  id: Id,
  accountId: Id,
  inviterDeviceId: Id,
  expiresAt: Millis,
  usedAt: Millis.nullable(),
  createdAt: Millis,
});

/**
 * POST /v1/join-requests — a new device asks to join, signed with its own (pending) key.
 * `proof` is made from the invite secret; only the inviting device can check it.
 */
export const CreateJoinRequest = z.strictObject({
  /** The account the invite belongs to (invite ids are scoped to their account). */
  accountId: Id,
  inviteId: Id,
  deviceId: Id,
  name: z.string().min(1).max(100),
  keys: DeviceKeys,
  proof: B64(512),
});
export const JoinRequestStatus = z.enum(['pending', 'approved', 'rejected']);
export const JoinRequest = z.strictObject({
  id: Id,
  accountId: Id,
  inviteId: Id,
  inviterDeviceId: Id,
  device: Device,
  proof: B64(512),
  status: JoinRequestStatus,
  reason: z.string().max(500).nullable(),
  createdAt: Millis,
  decidedAt: Millis.nullable(),
});
export type JoinRequest = z.infer<typeof JoinRequest>;

/** POST /v1/join-requests/:id/approve — by the inviting device: every ADK version wrapped to the newcomer. */
export const ApproveJoinRequest = z.strictObject({
  wrappedKeys: z.array(WrappedKey).min(1).max(1000),
  /** The inviting device's signed enrollment statement for the newcomer, kept with its device record. */
  enrollment: B64(2048).optional(),
});
/** POST /v1/join-requests/:id/reject */
export const RejectJoinRequest = z.strictObject({ reason: z.string().min(1).max(500) });

/** POST /v1/devices/heartbeat — reachability and published capabilities. */
export const HeartbeatRequest = z.strictObject({
  sealedCapabilities: B64().nullable(),
  keyVersions: z.array(z.number().int().positive()).max(1000),
});
export const HeartbeatResponse = z.strictObject({ serverTime: Millis });

/**
 * POST /v1/keys/rotate — a new ADK version wrapped for every remaining enrolled device. The moves not
 * yet past the source's relinquish whose checkpoint would be sealed under an older version are
 * cancelled (`keys_rotated`); from then on a move is created only under the newest version.
 */
export const RotateKeysRequest = z.strictObject({
  keyVersion: z.number().int().positive(),
  wrappedKeys: z.array(WrappedKey).min(1).max(1000),
});
export const KeysResponse = z.strictObject({
  currentVersion: z.number().int().nonnegative(),
  keys: z.array(WrappedKey),
  /**
   * A revoked device was given the current version: the account's devices rotate (a revoke rotates at
   * once on the revoking device; this finishes one that did not). Absent from older backends.
   */
  rotationDue: z.boolean().optional(),
});

export const MeResponse = z.strictObject({ device: Device });
export const DeviceListResponse = z.strictObject({ devices: z.array(Device) });
export const JoinRequestListResponse = z.strictObject({ joinRequests: z.array(JoinRequest) });
