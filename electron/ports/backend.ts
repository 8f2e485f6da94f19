/**
 * The backend as the device's parts see it (implemented over the signed sync client in
 * runtime/adapters/backend-port.ts), and the device's link to it (its addresses and whether it
 * answers).
 */
import type { Device, JoinRequest } from '../../shared/api/devices.ts';
import type { CheckpointRef, CreateHandoffRequest, Handoff, TransitionRequest } from '../../shared/api/handoffs.ts';
import type { Session, SessionAnswer, SessionEvent } from '../../shared/api/sessions.ts';
import type { BackendKeyView } from '../../shared/backend-keys.ts';
import type { BackendReachabilityView } from '../../shared/device-api.ts';
import type { ActionResult, Result } from '../../shared/errors.ts';

/** The most session events one page of listEvents holds (the backend's own bound). */
export const EVENT_PAGE_SIZE = 1000;

/** The backend calls the runtime makes; every failure is a value carrying the API error code. */
export interface BackendPort {
  listDevices(): Promise<Result<Device[]>>;
  heartbeat(sealedCapabilities: string | null, keyVersions: number[]): Promise<Result<unknown>>;
  createSession(sessionId: string, sealedMeta: string): Promise<Result<Session>>;
  getSession(sessionId: string): Promise<Result<Session>>;
  listSessions(): Promise<Result<Session[]>>;
  updateSessionMeta(sessionId: string, generation: number, sealedMeta: string): Promise<Result<Session>>;
  appendEvent(sessionId: string, generation: number, sealedBody: string): Promise<Result<SessionEvent>>;
  /** The session's events after `after`, oldest first: at most EVENT_PAGE_SIZE, so a shorter page is the last. */
  listEvents(sessionId: string, after: number): Promise<Result<SessionEvent[]>>;
  /** Posts a sealed answer to the session's permission request (any device of the account, at the session's generation). */
  postAnswer(sessionId: string, generation: number, sealedBody: string, idempotencyKey: string): Promise<Result<SessionAnswer>>;
  /** The session's answers after `after`, oldest first: at most EVENT_PAGE_SIZE, so a shorter page is the last. */
  listAnswers(sessionId: string, after: number): Promise<Result<SessionAnswer[]>>;
  /**
   * `keyVersion`: the account key version the checkpoint will be sealed under (carried in clear on the
   * record); `initiatorDeviceId`: the device that asked (this one, or the target by Move here).
   */
  /** Creates the `requested` record (CreateHandoffRequest: the session's generation, key version, who asked, the sealed commits). */
  createHandoff(request: CreateHandoffRequest): Promise<Result<Handoff>>;
  getHandoff(handoffId: string): Promise<Result<Handoff>>;
  /** Oldest first; with `limit`, one page newest first of those created before the handoff `before`. */
  listHandoffs(query: { sessionId?: string; active?: boolean; limit?: number; before?: string }): Promise<Result<Handoff[]>>;
  /** One compare-and-set; `idempotencyKey` makes a retry return the first answer. */
  transition(handoffId: string, request: TransitionRequest, idempotencyKey: string): Promise<Result<Handoff>>;
  /** Uploads a content-addressed body, whole or as chunks sent in order (never joined). */
  putBlob(digest: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<Result<CheckpointRef>>;
  /** Uploads a file as the blob of its digest, streamed from disk; `onProgress` hears the bytes sent. */
  putBlobFile(file: BlobFile, onProgress?: (doneBytes: number) => void): Promise<Result<CheckpointRef>>;
  /** Downloads a small body whole. */
  getBlob(digest: string): Promise<Result<Uint8Array>>;
  /**
   * Downloads a body into `sink` chunk by chunk as it arrives (a returned promise pauses it), with
   * the bytes received and the announced total; a sink's throw is rethrown.
   */
  getBlobTo(
    digest: string,
    sink: (chunk: Buffer) => void | Promise<void>,
    onProgress?: (doneBytes: number, totalBytes: number | null) => void,
  ): Promise<Result<{ size: number }>>;
  listJoinRequests(): Promise<Result<JoinRequest[]>>;
  /** The largest blob (sealed checkpoint) the backend takes, as it publishes it; null when it publishes none or cannot be asked. */
  blobLimit(): Promise<number | null>;
}

/** A file to upload as a blob: where it is, its size, and the SHA-256 of its bytes (its content address). */
export interface BlobFile {
  path: string;
  size: number;
  sha256: string;
}

/** The device's link to its backend: the addresses it uses and whether it reaches them (sync/). */
export interface BackendLinkPort {
  /** The addresses, in the order they are tried. */
  addresses(): string[];
  /** Uses `urls` from now on (reconnecting the push stream) and keeps them in the profile. */
  setAddresses(urls: readonly string[]): void;
  /** Tries `urls` without using them (health, then a signed call as this device): ok when one passes both, else why not. */
  probe(urls: readonly string[]): Promise<ActionResult>;
  reachability(): BackendReachabilityView;
  /** When the backend first refused this device as revoked (it stays so), else null. */
  revokedAt(): number | null;
  /** How long the call waiting longest for the backend's answer has waited, in ms (0 with none waiting). */
  longestWait(): number;
  /** Calls `listener` when reachability (or the key view) changes; returns its unsubscribe. */
  subscribe(listener: (view: BackendReachabilityView) => void): () => void;
  /** The backend keys accepted over TLS, and the last one refused. */
  key(): BackendKeyView;
  /** Accepts the keys `pins` from now on (kept in the profile), reconnecting at once. */
  setPins(pins: readonly string[]): void;
}
