/**
 * The backend's durable store, behind one interface: embedded SQLite (sqlite/) or PostgreSQL
 * shared by several instances (postgres/); one conformance suite runs against both.
 * Every mutation is one transaction; the compare-and-set rules (state, generation, owner, one active
 * handoff per session) are checked inside it. Every wrapped, sealed or signed value is opaque text.
 * Ids a client chooses (sessions, handoffs, invites, memory items) are scoped to the account: every
 * lookup is by (account, id), the same id may be used by two accounts, and another account's ids are
 * indistinguishable from unused ones. Device ids are global (requests name their device).
 */
import type { ApiErrorCode, Result } from '../../shared/errors.ts';
import type { Device, JoinRequest, WrappedKey } from '../../shared/api/devices.ts';
import type { CheckpointRef, Handoff, SealedCancelReason } from '../../shared/api/handoffs.ts';
import type { Session, SessionAnswer, SessionEvent } from '../../shared/api/sessions.ts';
import type { HandoffState } from '../../shared/handoff-states.ts';
import type { z } from 'zod';
import type { Invite } from '../../shared/api/devices.ts';
import type { MemoryItem } from '../../shared/api/memory.ts';

export type InviteRecord = z.infer<typeof Invite>;
export type MemoryRecord = z.infer<typeof MemoryItem>;
export type StoreResult<T> = Result<T, ApiErrorCode>;

/** The answer recorded for an idempotency key: replayed verbatim on a retry. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface IdempotencyRecord extends StoredResponse {
  deviceId: string;
  key: string;
  requestDigest: string;
}

/**
 * Passed to a mutation so the store records the answer in the same transaction as the change:
 * a retry after a crash then finds either both or neither. `recorded` is set once written.
 */
export interface IdempotencyWrite<T> {
  deviceId: string;
  key: string;
  requestDigest: string;
  encode(result: StoreResult<T>): StoredResponse;
  recorded: boolean;
}

export interface BlobRecord {
  accountId: string;
  digest: string;
  size: number;
  /** When it was last put (a second upload of the same body refreshes it): an unnamed body's grace runs from here. */
  createdAt: number;
}

export interface TransitionInput {
  accountId: string;
  handoffId: string;
  from: HandoffState;
  to: HandoffState;
  /** The session generation the caller acts at; must equal the current one. */
  generation: number;
  deviceId: string | null;
  at: number;
  checkpoint?: CheckpointRef;
  /** The code in clear, the sentence sealed (opaque here). */
  reason?: SealedCancelReason;
  resumePath?: 'checkpoint-import' | 'summary-continuation';
  sealedOutcome?: string;
  /** A further state entered in the same transaction, by the same device at the same time (checked by the caller). */
  continueTo?: HandoffState;
  /** Completing a handoff releases the bodies of its session's completed handoffs beyond the newest this many (default 10). */
  keepCompleted?: number;
}

export interface CreateHandoffInput {
  id: string;
  accountId: string;
  sessionId: string;
  sourceDeviceId: string;
  targetDeviceId: string;
  /** The device that asked for the move (the source or the target). */
  initiatorDeviceId: string;
  /** The commits the source is at, sealed (opaque here); null when it did not say. */
  sealedCommits: string | null;
  generation: number;
  /** The key version the checkpoint will be sealed under; null when the caller did not say. */
  keyVersion: number | null;
  at: number;
}

export interface AccountStore {
  getDevice(deviceId: string): Promise<Device | undefined>;
  createAccount(input: { accountId: string; device: Device; wrapped: string; at: number }): Promise<StoreResult<Device>>;
  /** The account's devices: enrolled and revoked ones, and pending ones while their join request is pending. */
  listDevices(accountId: string): Promise<Device[]>;
  heartbeat(deviceId: string, input: { at: number; sealedCapabilities: string | null; keyVersions: number[] }): Promise<Device>;
  revokeDevice(accountId: string, deviceId: string, at: number, idem?: IdempotencyWrite<Device>): Promise<StoreResult<Device>>;
  createInvite(invite: InviteRecord, idem?: IdempotencyWrite<InviteRecord>): Promise<StoreResult<InviteRecord>>;
  getInvite(accountId: string, inviteId: string): Promise<InviteRecord | undefined>;
  /**
   * Adds a pending device and its join request on a live, unused invite. At most one request per
   * invite is pending: the same device asking again gets its request back, another one `join_pending`.
   */
  createJoinRequest(input: {
    joinRequestId: string;
    invite: InviteRecord;
    device: Device;
    proof: string;
    at: number;
  }): Promise<StoreResult<JoinRequest>>;
  /** Turns down (reason "the invite expired") every pending join request whose invite has expired; how many. */
  expireJoinRequests(now: number): Promise<number>;
  getJoinRequest(joinRequestId: string): Promise<JoinRequest | undefined>;
  listJoinRequests(accountId: string, status?: JoinRequest['status']): Promise<JoinRequest[]>;
  approveJoinRequest(
    input: { joinRequestId: string; at: number; wrappedKeys: WrappedKey[]; enrollment?: string },
    idem?: IdempotencyWrite<JoinRequest>,
  ): Promise<StoreResult<JoinRequest>>;
  rejectJoinRequest(
    input: { joinRequestId: string; at: number; reason: string },
    idem?: IdempotencyWrite<JoinRequest>,
  ): Promise<StoreResult<JoinRequest>>;
  currentKeyVersion(accountId: string): Promise<number>;
  /** Whether a revoked device of the account was given the current key version: a rotation is due. */
  revokedHoldsCurrentKey(accountId: string): Promise<boolean>;
  getKeys(deviceId: string): Promise<WrappedKey[]>;
  rotateKeys(
    input: { accountId: string; keyVersion: number; wrappedKeys: WrappedKey[] },
    idem?: IdempotencyWrite<number>,
  ): Promise<StoreResult<number>>;
}

export interface SessionStore {
  createSession(session: Session, idem?: IdempotencyWrite<Session>): Promise<StoreResult<Session>>;
  getSession(accountId: string, sessionId: string): Promise<Session | undefined>;
  listSessions(accountId: string): Promise<Session[]>;
  /** Fenced: the caller must own the session at exactly `generation`. */
  updateSessionMeta(
    input: { accountId: string; sessionId: string; deviceId: string; generation: number; sealedMeta: string; at: number },
    idem?: IdempotencyWrite<Session>,
  ): Promise<StoreResult<Session>>;
  /** Fenced like updateSessionMeta; assigns the next seq. */
  appendEvent(
    input: { accountId: string; sessionId: string; deviceId: string; generation: number; sealedBody: string; at: number },
    idem?: IdempotencyWrite<SessionEvent>,
  ): Promise<StoreResult<SessionEvent>>;
  listEvents(accountId: string, sessionId: string, after: number, limit: number): Promise<SessionEvent[]>;
  /**
   * Fenced by generation only (any device of the account may answer the owner's permission request);
   * assigns the next answer seq. With `caps`, refuses (`rate_limited`) a post that would pass them,
   * counted in the same transaction: posts of one session, and of one device, are counted one at a time.
   */
  appendAnswer(
    input: { accountId: string; sessionId: string; deviceId: string; generation: number; sealedBody: string; at: number; caps?: PostCaps },
    idem?: IdempotencyWrite<SessionAnswer>,
  ): Promise<StoreResult<SessionAnswer>>;
  listAnswers(accountId: string, sessionId: string, after: number, limit: number): Promise<SessionAnswer[]>;
  /** The session's owner, `deviceId`, has taken every post up to `upTo` (its read cursor): they may be pruned. Others change nothing. */
  markPostsTaken(input: { accountId: string; sessionId: string; deviceId: string; upTo: number }): Promise<void>;
}

/** How much was posted to sessions' logs in a window: posts, their sealed bodies' characters, and the oldest post's time. */
export interface PostLoad {
  posts: number;
  bytes: number;
  oldestAt: number | null;
}

/** What one device may post to all sessions, and all devices to one session, in each window (limits.ts). */
export interface PostCaps {
  windowMs: number;
  maxPostsPerDevice: number;
  maxPostBytesPerDevice: number;
  maxPostsPerSession: number;
  maxPostBytesPerSession: number;
}

/** Which handoffs a listing returns: of one session, only active (or only finished) ones, one page. */
export interface HandoffFilter {
  sessionId?: string | undefined;
  active?: boolean | undefined;
  page?: { limit: number; before?: string | undefined } | undefined;
}

export interface HandoffStore {
  /** Creates a handoff if the caller owns the session at `generation` and no other handoff is active. */
  createHandoff(input: CreateHandoffInput, idem?: IdempotencyWrite<Handoff>): Promise<StoreResult<Handoff>>;
  getHandoff(accountId: string, handoffId: string): Promise<Handoff | undefined>;
  /**
   * The account's handoffs, oldest first; with `page`, at most `page.limit` of them, newest first, of
   * those created before the handoff `page.before` (none when it is unknown), read by index and limit.
   */
  listHandoffs(accountId: string, filter: HandoffFilter): Promise<Handoff[]>;
  /**
   * Compare-and-set on (handoff, expected state, session generation) in one transaction; entering
   * `ownership-transferred` also increments the session generation and sets its owner to the target.
   * With `continueTo`, the handoff then moves on to that state in the same transaction. A checkpoint
   * is named in the same transaction: refused (`validation_failed`) unless the account's record of
   * that body is there with that size, so a committed transition never names a collected body. Ending
   * a handoff releases the bodies no longer needed (see Handoff.checkpointKept).
   */
  transitionHandoff(
    input: TransitionInput,
    idem?: IdempotencyWrite<{ handoff: Handoff; session: Session }>,
  ): Promise<StoreResult<{ handoff: Handoff; session: Session }>>;
}

/** The records of the account's blobs (the bodies themselves are in the blob store, blobs/). */
export interface BlobRecordStore {
  /** Records a body just committed (on PostgreSQL, refreshing the body's time; throws when it was removed meanwhile). */
  putBlob(record: BlobRecord): Promise<BlobRecord>;
  getBlob(accountId: string, digest: string): Promise<BlobRecord | undefined>;
  /**
   * Deletes the record of `digest` when nothing has named it and it is still the one put at `createdAt`
   * (a transition that carried the body lost its compare-and-set), and queues the digest for body
   * removal at `at`, in one transaction; whether it did.
   */
  dropUnnamedBlob(input: { accountId: string; digest: string; createdAt: number; at: number }): Promise<boolean>;
}

/** The account's sealed memory items, by topic. */
export interface MemoryItemStore {
  putMemory(item: MemoryRecord & { accountId: string }, idem?: IdempotencyWrite<MemoryRecord>): Promise<StoreResult<MemoryRecord>>;
  listMemory(accountId: string, topic: string): Promise<MemoryRecord[]>;
}

/** What the request pipeline keeps of requests: idempotency answers (a retry gets the first) and nonces (a replay is refused). */
export interface RequestRecordStore {
  findIdempotent(deviceId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Records an answer unless one is already recorded for the key. */
  saveIdempotent(record: IdempotencyRecord, at: number): Promise<void>;
  /** Records a nonce; false when the device already used it (a replay). */
  useNonce(deviceId: string, nonce: string, expiresAt: number): Promise<boolean>;
  /** Forgets nonces and idempotency answers that can no longer matter. */
  prune(now: number): Promise<void>;
}

/**
 * What checkpoint retention collects by (service/collector.ts): records nothing holds, and the queue
 * of digests whose bodies go once no record names them. 'busy': another instance is collecting.
 */
export interface RetentionStore {
  /**
   * Deletes, in one transaction, up to `limit` records no handoff holds: named only by handoffs that
   * released them, or never named and last put before `unnamedBefore`; queues their digests. How many.
   */
  collectBlobRecords(input: { unnamedBefore: number; limit: number; at: number }): Promise<number | 'busy'>;
  /**
   * Deletes, in one transaction, up to `limit` posts of sessions' logs made before `keptAfter` that are
   * taken (by the session's owner), at an older generation than the session's, or made before
   * `expiredBefore`. How many.
   */
  prunePosts(input: { keptAfter: number; expiredBefore: number; limit: number }): Promise<number>;
  /** Which of `digests` no account has a record of. */
  unrecordedDigests(digests: string[]): Promise<string[]>;
  /** Queues `digests` for body removal (files a sweep found with no record). */
  queueBodies(digests: string[], at: number): Promise<void>;
  /** Up to `limit` queued digests due by `now`, oldest first; none while a backup holds the bodies. */
  dueBodies(now: number, limit: number): Promise<string[]>;
  /** Drops `settled` from the queue and puts the rest of `taken` off until `later`. */
  settleBodies(taken: string[], settled: string[], later: number): Promise<void>;
}

export type StoreKind = 'sqlite' | 'postgres';

export interface Store
  extends AccountStore, SessionStore, HandoffStore, BlobRecordStore, RetentionStore, MemoryItemStore, RequestRecordStore {
  readonly kind: StoreKind;
  /** Whether the store answers a trivial read now. Never throws. */
  reachable(): Promise<boolean>;
  close(): void | Promise<void>;
}
