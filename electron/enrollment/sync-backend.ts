/** The enrollment port over the signed sync client (electron/sync). */
import { createBackendClient, type BackendClient } from '../sync/backend-client.ts';
import { BackendTrust } from '../sync/backend-trust.ts';
import type { CallResult } from '../sync/call-result.ts';
import type { Result } from '../../shared/errors.ts';
import type { EnrollmentBackend, EnrollmentBackendFactory } from './enrollment-backend.ts';

async function pick<T, U>(call: Promise<CallResult<T>>, take: (value: T) => U): Promise<Result<U>> {
  const result = await call;
  return result.ok ? { ok: true, value: take(result.value) } : result;
}

/** Enrollment calls made through `client` (signed by the client's signer). */
export function syncEnrollmentBackend(client: BackendClient): EnrollmentBackend {
  const same = <T>(value: T): T => value;
  return {
    createAccount: (body) => pick(client.call('createAccount', { body }), same),
    me: () => pick(client.call('me'), (r) => r.device),
    listDevices: () => pick(client.call('listDevices'), (r) => r.devices),
    revokeDevice: (deviceId) => pick(client.call('revokeDevice', { params: { deviceId }, body: {} }), (r) => r.device),
    createInvite: (inviteId, ttlMs) => pick(client.call('createInvite', { body: { inviteId, ttlMs } }), (r) => r.invite),
    createJoinRequest: (body) => pick(client.call('createJoinRequest', { body }), (r) => r.joinRequest),
    listJoinRequests: (status) =>
      pick(client.call('listJoinRequests', { query: status === undefined ? {} : { status } }), (r) => r.joinRequests),
    getJoinRequest: (joinRequestId) => pick(client.call('getJoinRequest', { params: { joinRequestId } }), (r) => r.joinRequest),
    approveJoinRequest: (joinRequestId, wrappedKeys, enrollment) =>
      pick(
        client.call('approveJoinRequest', {
          params: { joinRequestId },
          body: enrollment === undefined ? { wrappedKeys } : { wrappedKeys, enrollment },
        }),
        (r) => r.joinRequest,
      ),
    rejectJoinRequest: (joinRequestId, reason) =>
      pick(client.call('rejectJoinRequest', { params: { joinRequestId }, body: { reason } }), (r) => r.joinRequest),
    getKeys: () => pick(client.call('getKeys'), same),
    rotateKeys: (keyVersion, wrappedKeys) => pick(client.call('rotateKeys', { body: { keyVersion, wrappedKeys } }), same),
  };
}

/** The default factory: a signed sync client per address list, pinned keys and signer. */
export const syncEnrollmentBackendFactory: EnrollmentBackendFactory = (backendUrls, signer, pins = []) =>
  syncEnrollmentBackend(createBackendClient({ baseUrl: backendUrls, signer, trust: new BackendTrust(pins) }));
