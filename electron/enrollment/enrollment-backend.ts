/**
 * The backend calls enrollment makes, as a narrow port. Every failure is a value carrying the API
 * error code (or `unreachable`). The real implementation adapts the signed sync client
 * (electron/sync); tests use it against a real backend process.
 */
import type { z } from 'zod';
import type {
  CreateAccountRequest,
  CreateAccountResponse,
  CreateJoinRequest,
  Device,
  Invite,
  JoinRequest,
  KeysResponse,
  WrappedKey,
} from '../../shared/api/devices.ts';
import type { Result } from '../../shared/errors.ts';

/** Signs requests for the backend: structurally the sync client's RequestSigner. */
export interface EnrollmentSigner {
  deviceId: string;
  sign(data: Uint8Array): Uint8Array;
}

export interface EnrollmentBackend {
  createAccount(body: z.infer<typeof CreateAccountRequest>): Promise<Result<z.infer<typeof CreateAccountResponse>>>;
  me(): Promise<Result<Device>>;
  listDevices(): Promise<Result<Device[]>>;
  revokeDevice(deviceId: string): Promise<Result<Device>>;
  /** Registers an invite valid for `ttlMs` from the backend's clock (its default when absent). */
  createInvite(inviteId: string, ttlMs?: number): Promise<Result<z.infer<typeof Invite>>>;
  createJoinRequest(body: z.infer<typeof CreateJoinRequest>): Promise<Result<JoinRequest>>;
  listJoinRequests(status?: JoinRequest['status']): Promise<Result<JoinRequest[]>>;
  getJoinRequest(joinRequestId: string): Promise<Result<JoinRequest>>;
  /** `enrollment`: the approver's signed statement for the newcomer (enrollment-statement.ts). */
  approveJoinRequest(joinRequestId: string, wrappedKeys: WrappedKey[], enrollment?: string): Promise<Result<JoinRequest>>;
  rejectJoinRequest(joinRequestId: string, reason: string): Promise<Result<JoinRequest>>;
  getKeys(): Promise<Result<z.infer<typeof KeysResponse>>>;
  rotateKeys(keyVersion: number, wrappedKeys: WrappedKey[]): Promise<Result<z.infer<typeof KeysResponse>>>;
}

/** Makes a backend port for the backend's addresses (tried in order) and the keys it may present (`pins`), signing as `signer`. */
export type EnrollmentBackendFactory = (
  backendUrls: readonly string[],
  signer: EnrollmentSigner,
  pins?: readonly string[],
) => EnrollmentBackend;
