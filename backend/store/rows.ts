/**
 * Row shapes of the stores (the SQLite and PostgreSQL stores have the same columns) and their mapping to the API
 * and store types, plus the refusal a mutation throws to roll its transaction back.
 */
import { fail, type ApiErrorCode } from '../../shared/errors.ts';
import type { Device, JoinRequest } from '../../shared/api/devices.ts';
import type { Session, SessionEvent } from '../../shared/api/sessions.ts';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { HandoffState } from '../../shared/handoff-states.ts';
import type { InviteRecord, StoreResult } from './store.ts';

export interface DeviceRow {
  id: string;
  account_id: string;
  name: string;
  status: Device['status'];
  signing_public_key: string;
  agreement_public_key: string;
  enrolled_at: number | null;
  revoked_at: number | null;
  last_seen_at: number | null;
  sealed_capabilities: string | null;
  key_versions: string;
  enrollment: string | null;
}

/** Maps a device row to the API's Device. */
export function toDevice(r: DeviceRow): Device {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    status: r.status,
    signingPublicKey: r.signing_public_key,
    agreementPublicKey: r.agreement_public_key,
    enrolledAt: r.enrolled_at,
    revokedAt: r.revoked_at,
    lastSeenAt: r.last_seen_at,
    sealedCapabilities: r.sealed_capabilities,
    keyVersions: JSON.parse(r.key_versions) as number[],
    ...(r.enrollment === null ? {} : { enrollment: r.enrollment }),
  };
}

export interface JoinRequestRow {
  id: string;
  account_id: string;
  invite_id: string;
  inviter_device_id: string;
  device_id: string;
  proof: string;
  status: JoinRequest['status'];
  reason: string | null;
  created_at: number;
  decided_at: number | null;
}

/** Maps a join-request row (and its device) to the API's JoinRequest. */
export function toJoinRequest(r: JoinRequestRow, device: Device): JoinRequest {
  return {
    id: r.id,
    accountId: r.account_id,
    inviteId: r.invite_id,
    inviterDeviceId: r.inviter_device_id,
    device,
    proof: r.proof,
    status: r.status,
    reason: r.reason,
    createdAt: r.created_at,
    decidedAt: r.decided_at,
  };
}

export interface SessionRow {
  id: string;
  account_id: string;
  owner_device_id: string;
  generation: number;
  sealed_meta: string;
  last_seq: number;
  created_at: number;
  updated_at: number;
}

/** Maps a session row to the API's Session. */
export function toSession(r: SessionRow): Session {
  return {
    id: r.id,
    accountId: r.account_id,
    ownerDeviceId: r.owner_device_id,
    generation: r.generation,
    sealedMeta: r.sealed_meta,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface EventRow {
  session_id: string;
  seq: number;
  generation: number;
  device_id: string;
  sealed_body: string;
  created_at: number;
}

/** Maps an event row to the API's SessionEvent. */
export function toEvent(r: EventRow): SessionEvent {
  return {
    sessionId: r.session_id,
    seq: r.seq,
    generation: r.generation,
    deviceId: r.device_id,
    sealedBody: r.sealed_body,
    createdAt: r.created_at,
  };
}

export interface InviteRow {
  id: string;
  account_id: string;
  inviter_device_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/** Maps an invite row to the store's InviteRecord. */
export function toInvite(r: InviteRow): InviteRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    inviterDeviceId: r.inviter_device_id,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    createdAt: r.created_at,
  };
}

export interface HandoffRow {
  id: string;
  account_id: string;
  session_id: string;
  source_device_id: string;
  target_device_id: string;
  /** Null on rows made before it was kept: the source asked. */
  initiator_device_id: string | null;
  state: HandoffState;
  generation: number;
  checkpoint_digest: string | null;
  checkpoint_size: number | null;
  checkpoint_released_at: number | null;
  cancel_code: string | null;
  sealed_reason: string | null;
  key_version: number | null;
  resume_path: Handoff['resumePath'];
  sealed_outcome: string | null;
  /** Null on rows made before it was kept, or when the source did not say. */
  sealed_commits: string | null;
  created_at: number;
  updated_at: number;
}

/** Maps a handoff row and its history (in order) to the API's Handoff. */
export function toHandoff(r: HandoffRow, history: Handoff['history']): Handoff {
  return {
    id: r.id,
    accountId: r.account_id,
    sessionId: r.session_id,
    sourceDeviceId: r.source_device_id,
    targetDeviceId: r.target_device_id,
    initiatorDeviceId: r.initiator_device_id ?? r.source_device_id,
    state: r.state,
    generation: r.generation,
    checkpoint: r.checkpoint_digest === null ? null : { digest: r.checkpoint_digest, size: r.checkpoint_size ?? 0 },
    checkpointKept: r.checkpoint_digest !== null && r.checkpoint_released_at === null,
    keyVersion: r.key_version,
    cancelReason: r.cancel_code === null ? null : { code: r.cancel_code, sealed: r.sealed_reason },
    resumePath: r.resume_path,
    sealedOutcome: r.sealed_outcome,
    sealedCommits: r.sealed_commits ?? null,
    history,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Thrown inside a transaction to roll it back and hand a refusal out. */
class Refusal extends Error {
  constructor(readonly result: StoreResult<never>) {
    super(result.ok ? 'refusal' : result.message);
  }
}

/** Refuses from inside `mutate`: rolls back every write of the transaction. */
export function refuse(code: ApiErrorCode, message: string, details?: Record<string, unknown>): never {
  throw new Refusal(fail(code, message, details));
}

/** The refusal `error` carries when `refuse` threw it, else undefined. */
export function refusalOf(error: unknown): StoreResult<never> | undefined {
  return error instanceof Refusal ? error.result : undefined;
}
