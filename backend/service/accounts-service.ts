/** Accounts, devices, invites and join requests: the rules around the store's account half. */
import { fail, ok } from '../../shared/errors.ts';
import { DEFAULT_INVITE_TTL_MS, type Device, type WrappedKey } from '../../shared/api/devices.ts';
import type { InviteRecord } from '../store/store.ts';
import { cancelHandoffsOfRevoked } from './handoffs-service.ts';
import { answer, idemWrite, type Answer, type Call, type Deps, type SelfCall } from './context.ts';

/** Creates an account with its first (enrolled) device and ADK version 1 wrapped to it. */
export async function createAccount(deps: Deps, { body }: SelfCall<'createAccount'>): Answer<'createAccount'> {
  const at = deps.clock();
  const accountId = deps.newId();
  const device: Device = {
    id: body.deviceId,
    accountId,
    name: body.name,
    status: 'enrolled',
    signingPublicKey: body.keys.signingPublicKey,
    agreementPublicKey: body.keys.agreementPublicKey,
    enrolledAt: at,
    revokedAt: null,
    lastSeenAt: at,
    sealedCapabilities: null,
    keyVersions: [1],
  };
  const result = await deps.store.createAccount({ accountId, device, wrapped: body.wrapped, at });
  return answer(result, (d) => ({ accountId, device: d }));
}

/** The calling device as the backend sees it. */
export async function me(_deps: Deps, { caller }: Call<'me'>): Answer<'me'> {
  return ok({ device: caller });
}

/** Every device of the caller's account (pending and revoked ones included). */
export async function listDevices(deps: Deps, { caller }: Call<'listDevices'>): Answer<'listDevices'> {
  return ok({ devices: await deps.store.listDevices(caller.accountId) });
}

/** Records reachability and published capabilities, and tells the account. */
export async function heartbeat(deps: Deps, { caller, body }: Call<'heartbeat'>): Answer<'heartbeat'> {
  const at = deps.clock();
  const device = await deps.store.heartbeat(caller.id, { at, sealedCapabilities: body.sealedCapabilities, keyVersions: body.keyVersions });
  deps.push.publish(caller.accountId, { type: 'device', device });
  return ok({ serverTime: at });
}

/** Revokes a device of the account at once: its next request is refused, its streams close, its pending handoffs end. */
export async function revokeDevice(deps: Deps, { caller, params, idem }: Call<'revokeDevice'>): Answer<'revokeDevice'> {
  const wrap = (device: Device) => ({ device });
  const result = await deps.store.revokeDevice(caller.accountId, params.deviceId!, deps.clock(), idemWrite(idem, wrap));
  if (result.ok) {
    deps.push.publish(caller.accountId, { type: 'device', device: result.value });
    deps.push.disconnectDevice(caller.accountId, result.value.id);
    await cancelHandoffsOfRevoked(deps, caller.accountId, result.value.id);
  }
  return answer(result, wrap);
}

/**
 * Registers an invite id made by the caller (the secret never reaches the backend), valid for its
 * `ttlMs` (15 minutes by default) from the backend's clock; a lifetime over the limit is refused.
 */
export async function createInvite(deps: Deps, { caller, body, idem }: Call<'createInvite'>): Answer<'createInvite'> {
  const at = deps.clock();
  const ttlMs = body.ttlMs ?? Math.min(DEFAULT_INVITE_TTL_MS, deps.limits.maxInviteTtlMs);
  const limitMs = deps.limits.maxInviteTtlMs;
  if (ttlMs > limitMs) {
    return fail('invite_lifetime_too_long', `an invite may live at most ${Math.floor(limitMs / 60_000)} minutes`, { ttlMs, limitMs });
  }
  const invite: InviteRecord = {
    id: body.inviteId,
    accountId: caller.accountId,
    inviterDeviceId: caller.id,
    expiresAt: at + ttlMs,
    usedAt: null,
    createdAt: at,
  };
  const wrap = (value: InviteRecord) => ({ invite: value });
  return answer(await deps.store.createInvite(invite, idemWrite(idem, wrap)), wrap);
}

/**
 * A new device asks to join with an invite: it becomes a pending device with a pending request. One
 * request per invite waits at a time (the same device asking again gets it back); it expires with the invite.
 */
export async function createJoinRequest(deps: Deps, { body }: SelfCall<'createJoinRequest'>): Answer<'createJoinRequest'> {
  const at = deps.clock();
  const invite = await deps.store.getInvite(body.accountId, body.inviteId);
  if (!invite) return fail('invite_invalid', 'the invite is not valid');
  if (invite.usedAt !== null) return fail('invite_used', 'the invite has been used');
  if (invite.expiresAt <= at) return fail('invite_expired', 'the invite has expired');
  const inviter = await deps.store.getDevice(invite.inviterDeviceId);
  if (!inviter || inviter.status !== 'enrolled') return fail('invite_invalid', 'the invite is not valid');
  const device: Device = {
    id: body.deviceId,
    accountId: invite.accountId,
    name: body.name,
    status: 'pending',
    signingPublicKey: body.keys.signingPublicKey,
    agreementPublicKey: body.keys.agreementPublicKey,
    enrolledAt: null,
    revokedAt: null,
    lastSeenAt: at,
    sealedCapabilities: null,
    keyVersions: [],
  };
  const result = await deps.store.createJoinRequest({ joinRequestId: deps.newId(), invite, device, proof: body.proof, at });
  if (result.ok) {
    deps.push.publish(invite.accountId, { type: 'join-request', joinRequest: result.value });
    deps.push.publish(invite.accountId, { type: 'device', device: result.value.device });
  }
  return answer(result, (joinRequest) => ({ joinRequest }));
}

/** The account's join requests, optionally by status. */
export async function listJoinRequests(deps: Deps, { caller, query }: Call<'listJoinRequests'>): Answer<'listJoinRequests'> {
  return ok({ joinRequests: await deps.store.listJoinRequests(caller.accountId, query.status) });
}

/** One join request: for the account's enrolled devices, or for the pending device it concerns. */
export async function getJoinRequest(deps: Deps, { caller, params }: Call<'getJoinRequest'>): Answer<'getJoinRequest'> {
  const joinRequest = await deps.store.getJoinRequest(params.joinRequestId!);
  const visible =
    joinRequest && joinRequest.accountId === caller.accountId && (caller.status === 'enrolled' || joinRequest.device.id === caller.id);
  return visible ? ok({ joinRequest }) : fail('not_found', 'no such join request');
}

/** Checks that `wraps` give the newcomer every ADK version of the account, made by the approver. */
function checkJoinWraps(wraps: WrappedKey[], deviceId: string, approverId: string, currentVersion: number) {
  if (wraps.some((w) => w.deviceId !== deviceId || w.wrappedBy !== approverId)) {
    return fail('validation_failed', 'every wrapped key must be for the joining device and made by the approver');
  }
  const versions = new Set(wraps.map((w) => w.keyVersion));
  const missing = Array.from({ length: currentVersion }, (_, i) => i + 1).filter((v) => !versions.has(v));
  if (missing.length > 0)
    return fail('key_versions_incomplete', 'every key version of the account must be wrapped for the new device', { missing });
  if (versions.size !== wraps.length || [...versions].some((v) => v > currentVersion))
    return fail('validation_failed', 'wrapped keys must name each existing version once');
  return undefined;
}

/** The inviting device approves a join: the invite is spent, the device enrolled, its keys stored. */
export async function approveJoinRequest(
  deps: Deps,
  { caller, params, body, idem }: Call<'approveJoinRequest'>,
): Answer<'approveJoinRequest'> {
  const joinRequest = await deps.store.getJoinRequest(params.joinRequestId!);
  if (!joinRequest || joinRequest.accountId !== caller.accountId) return fail('not_found', 'no such join request');
  if (joinRequest.inviterDeviceId !== caller.id) return fail('forbidden', 'only the device that made the invite may approve this request');
  const refused = checkJoinWraps(body.wrappedKeys, joinRequest.device.id, caller.id, await deps.store.currentKeyVersion(caller.accountId));
  if (refused) return refused;
  const wrap = (value: typeof joinRequest) => ({ joinRequest: value });
  const result = await deps.store.approveJoinRequest(
    { joinRequestId: joinRequest.id, at: deps.clock(), wrappedKeys: body.wrappedKeys, enrollment: body.enrollment },
    idemWrite(idem, wrap),
  );
  if (result.ok) {
    deps.push.publish(caller.accountId, { type: 'join-request', joinRequest: result.value });
    deps.push.publish(caller.accountId, { type: 'device', device: result.value.device });
  }
  return answer(result, wrap);
}

/** An enrolled device of the account turns a join request down. */
export async function rejectJoinRequest(
  deps: Deps,
  { caller, params, body, idem }: Call<'rejectJoinRequest'>,
): Answer<'rejectJoinRequest'> {
  const joinRequest = await deps.store.getJoinRequest(params.joinRequestId!);
  if (!joinRequest || joinRequest.accountId !== caller.accountId) return fail('not_found', 'no such join request');
  const wrap = (value: typeof joinRequest) => ({ joinRequest: value });
  const result = await deps.store.rejectJoinRequest(
    { joinRequestId: joinRequest.id, at: deps.clock(), reason: body.reason },
    idemWrite(idem, wrap),
  );
  if (result.ok) deps.push.publish(caller.accountId, { type: 'join-request', joinRequest: result.value });
  return answer(result, wrap);
}
