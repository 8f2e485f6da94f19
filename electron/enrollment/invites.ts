/**
 * The inviting side: making a one-time invite, and checking join requests against the invite
 * secrets this device holds. Only this device can approve; the backend only relays.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_INVITE_TTL_MS, MAX_INVITE_TTL_MS, type JoinRequest } from '../../shared/api/devices.ts';
import type { Result } from '../../shared/errors.ts';
import type { EnrollmentBackend } from './enrollment-backend.ts';
import { signEnrollment } from './enrollment-statement.ts';
import { encodeInvite, proofMatches } from './invite-token.ts';
import { enrolledAccount, wrapRingFor } from './key-distribution.ts';
import { loadInvites, saveInvites, type BackendHostRecord, type PendingInvite, type Profile } from './profile.ts';
import { onlyThisMachine } from '../../shared/backend-addresses.ts';

export interface InviteOptions {
  ttlMs?: number;
  now?: () => number;
  /** The backend addresses the invite carries (default: this device's own), in the order to try them. */
  addresses?: readonly string[];
  /** The device hosting the backend (default: the one this device's profile names, if any). */
  backendHost?: BackendHostRecord | null;
}

/**
 * Registers a one-time invite id with the backend and returns the invite as one line (secret included).
 * The backend sets its expiry (`ttlMs` from now, 15 minutes by default, at most an hour).
 * `thisMachineOnly`: every address it carries is a loopback one.
 */
export async function createInvite(
  profile: Profile,
  backend: EnrollmentBackend,
  options: InviteOptions = {},
): Promise<Result<{ line: string; inviteId: string; expiresAt: number; thisMachineOnly: boolean }>> {
  const account = enrolledAccount(profile);
  if (!account.ok) return account;
  const now = (options.now ?? Date.now)();
  const ttlMs = options.ttlMs ?? DEFAULT_INVITE_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0)
    return { ok: false, code: 'validation_failed', message: 'an invite lifetime must be a positive number of milliseconds' };
  if (ttlMs > MAX_INVITE_TTL_MS)
    return { ok: false, code: 'invite_lifetime_too_long', message: `an invite lives at most ${MAX_INVITE_TTL_MS / 60_000} minutes` };
  const inviteId = randomBytes(16).toString('base64url');
  const registered = await backend.createInvite(inviteId, ttlMs);
  if (!registered.ok) return registered;
  // The backend's clock sets the expiry; the invite line carries the same instant.
  const invite: PendingInvite = {
    inviteId,
    secret: randomBytes(32).toString('base64url'),
    expiresAt: registered.value.expiresAt,
    createdAt: now,
  };
  saveInvites(profile, [...loadInvites(profile).filter((i) => i.expiresAt > now), invite]);
  const addresses = options.addresses && options.addresses.length > 0 ? [...options.addresses] : profile.info.backendUrls;
  const backendHost = options.backendHost === undefined ? profile.info.backendHost : options.backendHost;
  const line = encodeInvite({
    v: 1,
    backendUrl: addresses[0]!,
    backendUrls: addresses,
    // Only when there are pins: an invite without them reads exactly as before.
    ...(profile.info.backendPins.length > 0 ? { backendPins: profile.info.backendPins } : {}),
    ...(backendHost ? { backendHost } : {}),
    accountId: account.value,
    inviteId: invite.inviteId,
    secret: invite.secret,
    expiresAt: invite.expiresAt,
    inviterDeviceId: profile.identity.deviceId,
    inviterSigningKey: profile.identity.keys.signingPublicKey,
    inviterAgreementKey: profile.identity.keys.agreementPublicKey,
    anchors: profile.info.trusted,
  });
  return { ok: true, value: { line, inviteId: invite.inviteId, expiresAt: invite.expiresAt, thisMachineOnly: onlyThisMachine(addresses) } };
}

export interface JoinDecision {
  joinRequestId: string;
  /** The invite the request was made with. */
  inviteId: string;
  deviceId: string;
  deviceName: string;
  outcome: 'approved' | 'rejected' | 'failed';
  reason: string | null;
}

/** Why a join request must be refused, or null when its proof checks out against a live invite. */
function refusal(request: JoinRequest, invite: PendingInvite | undefined, now: number): string | null {
  if (invite === undefined) return 'the invite is unknown to the inviting device or was already used';
  if (invite.expiresAt <= now) return 'the invite has expired';
  const { device } = request;
  const keys = { signingPublicKey: device.signingPublicKey, agreementPublicKey: device.agreementPublicKey };
  if (!proofMatches(invite.secret, request.proof, request.inviteId, device.id, keys))
    return 'the join proof does not match the invite secret';
  return null;
}

/** One decision round at a time per profile, so pushes arriving together never decide a request twice. */
const rounds = new WeakMap<Profile, Promise<unknown>>();

/**
 * Decides every pending join request made with this device's invites: a valid proof on a live,
 * unused invite gets every ADK version wrapped to the newcomer and is approved; anything else is
 * rejected with the reason. A used or expired invite's secret is forgotten. Call on `join-request`
 * pushes; concurrent calls for one profile run one after another.
 */
export function approvePendingJoins(
  profile: Profile,
  backend: EnrollmentBackend,
  now: () => number = Date.now,
): Promise<Result<JoinDecision[]>> {
  const round = (rounds.get(profile) ?? Promise.resolve()).then(() => decidePendingJoins(profile, backend, now));
  rounds.set(
    profile,
    round.catch(() => undefined),
  );
  return round;
}

async function decidePendingJoins(profile: Profile, backend: EnrollmentBackend, now: () => number): Promise<Result<JoinDecision[]>> {
  const account = enrolledAccount(profile);
  if (!account.ok) return account;
  const pending = await backend.listJoinRequests('pending');
  if (!pending.ok) return pending;
  const decisions: JoinDecision[] = [];
  for (const request of pending.value.filter((r) => r.inviterDeviceId === profile.identity.deviceId)) {
    const invites = loadInvites(profile);
    const invite = invites.find((i) => i.inviteId === request.inviteId);
    const reason = refusal(request, invite, now());
    const base = { joinRequestId: request.id, inviteId: request.inviteId, deviceId: request.device.id, deviceName: request.device.name };
    if (reason !== null) {
      if (invite !== undefined && invite.expiresAt <= now())
        saveInvites(
          profile,
          invites.filter((i) => i !== invite),
        );
      const rejected = await backend.rejectJoinRequest(request.id, reason);
      decisions.push({ ...base, outcome: rejected.ok ? 'rejected' : 'failed', reason: rejected.ok ? reason : rejected.message });
      continue;
    }
    const statement = signEnrollment(profile.identity, account.value, request.device, now());
    const approved = await backend.approveJoinRequest(request.id, wrapRingFor(profile, account.value, request.device), statement);
    const settled = approved.ok || approved.code === 'invite_used' || approved.code === 'invite_expired';
    if (settled)
      saveInvites(
        profile,
        loadInvites(profile).filter((i) => i.inviteId !== request.inviteId),
      );
    decisions.push({ ...base, outcome: approved.ok ? 'approved' : 'failed', reason: approved.ok ? null : approved.message });
  }
  return { ok: true, value: decisions };
}
