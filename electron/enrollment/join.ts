/**
 * The joining side: a new device presents an invite, proves it holds the secret, waits for the
 * inviting device to approve, and accepts only ADK wraps signed by that inviter.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JoinRequest } from '../../shared/api/devices.ts';
import type { Failure, Result } from '../../shared/errors.ts';
import { fileSecretStore } from '../crypto/secret-store.ts';
import { firstAnswering, type TurnProbe } from '../sync/address-probe.ts';
import { BackendTrust } from '../sync/backend-trust.ts';
import type { EnrollmentDeps } from './account.ts';
import type { EnrollmentBackend } from './enrollment-backend.ts';
import { decodeInvite, inviteBackendPins, inviteBackendUrls, joinProof, NEW_INVITE_HINT, type InviteToken } from './invite-token.ts';
import { refreshKeyRing, unwrapInto } from './key-distribution.ts';
import {
  discardNewProfile,
  loadProfile,
  openOrCreateProfile,
  restartAsNewDevice,
  saveProfile,
  setBackendPins,
  setBackendUrls,
  type Profile,
} from './profile.ts';

export interface JoinOptions {
  /** How often to ask whether the join was decided (default 500 ms). */
  pollMs?: number;
  /** How long to wait for the inviting device (default 15 minutes); the profile stays pending after. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The backend addresses to join through and keep, instead of the invite's. */
  backendUrls?: readonly string[];
  /** The backend keys to accept, instead of the invite's. */
  backendPins?: readonly string[];
}

const fail = <C extends string>(code: C, message: string): Failure<C> => ({ ok: false, code, message });

/** The clock time of `at` (hours and minutes), as a message names it. */
function clockTime(at: number): string {
  return new Date(at).toTimeString().slice(0, 5);
}

/** An invite the backend (or this device's clock) would not take, in words, with where to get a new one. */
function inviteRefused(code: string, message: string, token: InviteToken): Failure {
  switch (code) {
    case 'invite_expired':
      return fail(code, `This invite expired at ${clockTime(token.expiresAt)} (an invite lasts 15 minutes). ${NEW_INVITE_HINT}`);
    case 'invite_used':
      return fail(code, `This invite was already used to add a device; each invite adds one device. ${NEW_INVITE_HINT}`);
    case 'join_pending':
      return fail(code, `Another device is already joining with this invite; each invite adds one device. ${NEW_INVITE_HINT}`);
    case 'invite_invalid':
    case 'not_found':
      return fail(
        code,
        `The account's sync backend does not know this invite (it was made for another backend, or withdrawn). ${NEW_INVITE_HINT}`,
      );
    default:
      return fail(code, message);
  }
}

/** `items` as a person lists them: "a", "a or b", "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/**
 * Why no address of the invite answered, in one sentence naming them and the likely cause, and saying
 * to try again (the machine the backend runs on is named when the invite names it).
 */
export function unreachableSentence(urls: readonly string[], probe: TurnProbe, host: string | null): string {
  const on = host ? ` on ${host}` : '';
  if (!probe.silent) return `Couldn't use the sync backend${on}: ${probe.failures.join('; ')}.`;
  const ports = [...new Set(urls.map((url) => new URL(url).port || '443'))];
  const machine = host ?? 'the machine it runs on';
  return (
    `Couldn't reach the sync backend${on} at ${orList(urls)}. Check that this machine is on the same network (or VPN) as ${machine}, ` +
    `that ${machine} is awake with Baton running, and that its firewall lets ${ports.length === 1 ? `port ${ports[0]}` : 'those ports'} in; then try again.`
  );
}

async function postJoinRequest(
  profile: Profile,
  backend: EnrollmentBackend,
  token: InviteToken,
  deviceName: string,
): Promise<Result<string>> {
  const { identity } = profile;
  const posted = await backend.createJoinRequest({
    accountId: token.accountId,
    inviteId: token.inviteId,
    deviceId: identity.deviceId,
    name: deviceName,
    keys: identity.keys,
    proof: joinProof(token.secret, token.inviteId, identity.deviceId, identity.keys),
  });
  if (!posted.ok) return posted;
  profile.info = {
    ...profile.info,
    name: deviceName,
    accountId: token.accountId,
    status: 'pending',
    joinRequestId: posted.value.id,
    inviter: { deviceId: token.inviterDeviceId, signingPublicKey: token.inviterSigningKey },
    // The device hosting the backend, as the invite names it (Devices says where the backend runs).
    backendHost: token.backendHost ?? null,
    // The invite came out of band from the inviter: its keys and anchors are this device's trust roots.
    trusted: [
      { deviceId: token.inviterDeviceId, signingPublicKey: token.inviterSigningKey, agreementPublicKey: token.inviterAgreementKey },
      ...token.anchors.filter((a) => a.deviceId !== token.inviterDeviceId && a.deviceId !== identity.deviceId),
    ],
  };
  saveProfile(profile);
  return { ok: true, value: posted.value.id };
}

async function waitForDecision(
  backend: EnrollmentBackend,
  joinRequestId: string,
  options: JoinOptions,
  now: () => number,
): Promise<Result<JoinRequest>> {
  const deadline = now() + (options.timeoutMs ?? 15 * 60 * 1000);
  for (;;) {
    const current = await backend.getJoinRequest(joinRequestId);
    if (current.ok && current.value.status !== 'pending') return current;
    if (!current.ok && current.code !== 'unreachable') return current;
    if (now() >= deadline)
      return fail('join_timeout', 'the inviting device did not answer the join request in time; run the inviting device and try again');
    try {
      await sleep(options.pollMs ?? 500, undefined, { signal: options.signal });
    } catch {
      return fail('join_aborted', 'stopped waiting for the join to be approved');
    }
  }
}

/** Takes the inviter's wraps from the backend, trusting only the signing key the invite carried. */
async function acceptKeys(profile: Profile, backend: EnrollmentBackend): Promise<Result<Profile>> {
  const { inviter, accountId } = profile.info;
  if (inviter === null || accountId === null) return fail('profile_corrupt', 'the pending profile lost its invite');
  const keys = await backend.getKeys();
  if (!keys.ok) return keys;
  const fromInviter = keys.value.keys.filter((k) => k.wrappedBy === inviter.deviceId);
  const report = unwrapInto(profile, accountId, fromInviter, new Map([[inviter.deviceId, inviter.signingPublicKey]]));
  if (report.rejected.length > 0 || profile.ring.size === 0) {
    profile.info = { ...profile.info, status: 'rejected', joinRequestId: null };
    saveProfile(profile);
    const why = report.rejected[0]?.message ?? 'no key was wrapped for this device by the inviting device';
    return fail('join_keys_rejected', `the approval did not carry keys from the inviting device: ${why}`);
  }
  profile.info = { ...profile.info, status: 'enrolled', joinRequestId: null, inviter: null };
  saveProfile(profile);
  // Versions rotated in by other enrolled devices since the approval.
  await refreshKeyRing(profile, backend);
  return { ok: true, value: profile };
}

/**
 * Joins the account of `inviteLine` from the profile in `profileDir` (made if missing), through the
 * addresses given in `options.backendUrls`, else the invite's, accepting only the backend keys the
 * invite pins (or `options.backendPins`) before anything is sent; the profile keeps both. The addresses
 * are tried in turn first (a few seconds each): the invite's are kept with the first that answered
 * first; when none answers, a profile made for the join is forgotten and the refusal names them and
 * the likely cause (`backend_unreachable`). Resumes a pending join after a restart. Resolves once
 * enrolled with every ADK version, or with why not.
 */
export async function requestJoin(
  profileDir: string,
  inviteLine: string,
  deviceName: string,
  deps: EnrollmentDeps,
  options: JoinOptions = {},
): Promise<Result<Profile>> {
  const now = deps.now ?? Date.now;
  const decoded = decodeInvite(inviteLine);
  if (!decoded.ok) return decoded;
  const token = decoded.value;
  let backendUrls = [...(options.backendUrls ?? inviteBackendUrls(token))];
  const backendPins = [...(options.backendPins ?? inviteBackendPins(token))];
  const store = (deps.secretStore ?? fileSecretStore)(profileDir);
  const existed = loadProfile(profileDir, store).ok;
  const opened = openOrCreateProfile(profileDir, { name: deviceName, backendUrls }, store);
  if (!opened.ok) return opened;
  // A device refused before, or pending in another account, is known to the backend under its old id: it asks again as a new device.
  const { status, accountId } = opened.value.info;
  const askAnew = status === 'rejected' || (status === 'pending' && accountId !== token.accountId);
  const profile = askAnew ? restartAsNewDevice(opened.value) : opened.value;
  if (profile.info.status === 'enrolled')
    return fail('already_enrolled', `the device profile in ${profileDir} is already enrolled in account ${profile.info.accountId ?? ''}`);
  if (profile.info.status === 'revoked') return fail('device_revoked', 'this device was revoked; start a new profile to join again');
  let joinRequestId = profile.info.status === 'pending' ? profile.info.joinRequestId : null;
  if (joinRequestId === null) {
    if (token.expiresAt <= now()) return inviteRefused('invite_expired', '', token);
    // The addresses in turn, pinning the invite's keys: the first that answers is kept first.
    const probe = await firstAnswering(backendUrls, { signer: profile.identity, trust: new BackendTrust(backendPins) });
    if (probe.answered === null) {
      if (!existed) discardNewProfile(profile);
      const code = probe.silent ? 'backend_unreachable' : probe.code;
      return fail(code, unreachableSentence(backendUrls, probe, token.backendHost?.name ?? null));
    }
    // The invite's addresses are kept with the one that answered first; addresses given are kept as given.
    if (!options.backendUrls) backendUrls = [probe.answered, ...backendUrls.filter((url) => url !== probe.answered)];
  }
  setBackendUrls(profile, backendUrls);
  setBackendPins(profile, backendPins);
  const backend = deps.backend(backendUrls, profile.identity, backendPins);
  if (joinRequestId === null) {
    const posted = await postJoinRequest(profile, backend, token, deviceName);
    if (!posted.ok) return inviteRefused(posted.code, posted.message, token);
    joinRequestId = posted.value;
  }
  const decided = await waitForDecision(backend, joinRequestId, options, now);
  if (!decided.ok) return decided;
  if (decided.value.status === 'rejected') {
    profile.info = { ...profile.info, status: 'rejected', joinRequestId: null };
    saveProfile(profile);
    return fail('join_rejected', `The inviting device refused the join: ${decided.value.reason ?? 'no reason given'}. ${NEW_INVITE_HINT}`);
  }
  return acceptKeys(profile, backend);
}
