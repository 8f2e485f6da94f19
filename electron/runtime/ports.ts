/**
 * What the device runtime needs from the other parts, as narrow interfaces. The real
 * implementations (sync client, key ring + envelope, git, packets, providers) are in adapters/,
 * one file per port, and compose.ts wires them; the runtime itself only sees these, so every step
 * is testable with real parts or with a simple stand-in at the true edge.
 */
import type { AgentView, TranscriptEntry } from '../../shared/agents.ts';
import type { Device, JoinRequest } from '../../shared/api/devices.ts';
import type { CheckpointRef, DriftWarning, Handoff, TransitionRequest } from '../../shared/api/handoffs.ts';
import type { Session, SessionEvent } from '../../shared/api/sessions.ts';
import type { BackendReachabilityView, ProviderView } from '../../shared/device-api.ts';
import type { ActionResult, Result } from '../../shared/errors.ts';
import type {
  ContinuationInput,
  ExistingSession,
  ImportProgress,
  ProviderId,
  ProviderSession,
  ResumeData,
  ResumeOutcome,
  SessionSettings,
} from '../../shared/provider.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import type { StreamOpener, StreamSealer } from '../crypto/envelope-stream.ts';
import type { GitTransferListener } from '../git/transfer-progress.ts';
import type { RepoRead } from '../packet/checkpoint-packet.ts';
import type { CheckedOut } from '../packet/drift.ts';
import type { RepoRef } from '../local-state/local-state.ts';

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
  /** `keyVersion`: the account key version the checkpoint will be sealed under (carried in clear on the record). */
  createHandoff(
    handoffId: string,
    sessionId: string,
    targetDeviceId: string,
    generation: number,
    keyVersion: number,
  ): Promise<Result<Handoff>>;
  getHandoff(handoffId: string): Promise<Result<Handoff>>;
  listHandoffs(query: { sessionId?: string; active?: boolean }): Promise<Result<Handoff[]>>;
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

/** What a sealed JSON payload is bound to (the additional data of its envelope). */
export type SealContext =
  | { kind: 'session-meta'; sessionId: string }
  | { kind: 'session-event'; sessionId: string }
  | { kind: 'capabilities'; deviceId: string }
  | { kind: 'handoff-outcome'; sessionId: string; handoffId: string }
  | { kind: 'handoff-reason'; sessionId: string; handoffId: string };

export type UnsealFailureCode = 'checkpoint_rejected' | 'key_version_missing' | 'malformed_envelope' | 'unsupported_format';

/** Sealing under the account data key (crypto/envelope.ts, crypto/envelope-stream.ts). */
export interface SealPort {
  readonly accountId: string;
  /** ADK versions this device holds. */
  keyVersions(): number[];
  sealJson(value: unknown, context: SealContext): string;
  openJson(sealed: string, context: SealContext): Result<unknown, UnsealFailureCode>;
  /**
   * Starts sealing a checkpoint body, chunk by chunk, bound to (account, session, handoff, key
   * version): `keyVersion` when given (the one the handoff carries), else the newest.
   */
  startCheckpointSeal(sessionId: string, handoffId: string, keyVersion?: number): StreamSealer;
  /**
   * Starts opening a checkpoint envelope of `size` bytes chunk by chunk; its plaintext is
   * unauthenticated until the opener's `final()` answers ok.
   */
  startCheckpointOpen(sessionId: string, handoffId: string, size: number): StreamOpener;
}

/** One repository of a workspace as git reads it now. */
export interface RepoSnapshot extends RepoRef {
  path: string;
  head: string | null;
  mergeBase: string | null;
  /** The remote-tracking ref the merge base was taken with (`origin/main`), null without one. */
  baseRef: string | null;
}

/** A repository as the checkpoint records it: its snapshot and the files changed since the merge base (null: not read). */
export interface CheckpointRepo extends RepoSnapshot {
  changedFiles: string[] | null;
}

/** A repository as the pin left it: on `branch` at `head`, and what its verifying status read showed uncommitted. */
export interface CheckedOutRepo extends CheckedOut {
  path: string;
}

/** A repository pinned by a checkpoint. */
export interface PinnedRepo extends RepoRef {
  commit: string;
  mergeBase: string | null;
}

/** A session workspace on this device: its folder and its repositories (empty: found in the folder). */
export interface WorkspaceRef {
  workspace: string;
  repoPaths: string[];
}

/** Git work of the runtime (git/readiness.ts, git/pinning.ts). */
export interface GitPort {
  /** Whether git runs on this device. */
  available(): Promise<boolean>;
  /** The repositories of a workspace (its repoPaths, else the folder itself or its direct child repos). */
  repos(workspace: WorkspaceRef): Promise<RepoSnapshot[]>;
  /** The source half of the readiness report (dirty tree, unpushed commits…) over every repository. */
  sourceReadiness(workspace: WorkspaceRef): Promise<ReadinessReport>;
  /** At checkpoint time: the source readiness report and, read with it, each repository as the checkpoint records it. */
  checkpointRead(workspace: WorkspaceRef): Promise<{ report: ReadinessReport; repos: CheckpointRepo[] }>;
  /**
   * Read only, for a checkpoint taken ahead of the move's own: as checkpointRead, on the status
   * sourceReadiness read of this workspace under 2 s ago when it found it ready (no status read
   * then), else reading anew.
   */
  checkpointReadAhead(workspace: WorkspaceRef): Promise<{ report: ReadinessReport; repos: CheckpointRepo[] }>;
  /** Remote URLs of the repositories this device can open under its workspace root. */
  remotesUnder(root: string): Promise<string[]>;
  /** Target prepare: can open or clone each repo and fetch its branch (progress to `progress`); a failure carries a code. */
  prepare(repos: RepoRef[], workspaceRoot: string, progress?: GitTransferListener): Promise<Result<{ workspace: string }>>;
  /** Read only: the workspace `pin` would give for `repos` (each a clone found here, or the folder it would be cloned to); null for none. */
  locate(repos: PinnedRepo[], workspaceRoot: string): Promise<string | null>;
  /**
   * Read only, as the target claims the session: begins the clean-status read of each of `repos`
   * already cloned here, for the `pin` asked for right after to take instead of reading again. Where
   * `prepare` found the clones moments ago, they are not looked for again (by this read or the pin).
   */
  readClonesAhead(repos: RepoRef[], workspaceRoot: string): void;
  /** Target activation: every repo at exactly its pinned commit (fetches and clones report to `progress`); the workspace path. */
  pin(
    repos: PinnedRepo[],
    workspaceRoot: string,
    progress?: GitTransferListener,
  ): Promise<Result<{ workspace: string; repoPaths: string[]; checkedOut: CheckedOutRepo[] }>>;
}

/** What the caller already read of a repository, so a packet's git facts are not read twice. */
export type KnownRepoFacts = RepoRead;

/** Per-branch handoff packets (packet/). */
export interface PacketPort {
  build(
    repoPath: string,
    prose: { goal: string; currentState: string; nextAction: string },
    provider: string,
    known?: KnownRepoFacts,
  ): Promise<unknown>;
  /** Drift of `packet` against the repository; `checkedOut`: what the pin just verified of it (not read again). */
  drift(packet: unknown, repoPath: string, checkedOut?: CheckedOutRepo): Promise<DriftWarning[]>;
}

/** Providers (providers/). */
export interface ProviderPort {
  list(): Promise<ProviderView[]>;
  create(id: ProviderId, settings: SessionSettings): ProviderSession;
  /** This machine's own sessions of CLI provider `id` for `workspace` (for adoption), newest first. */
  existing(id: string, workspace: string): Promise<Result<ExistingSession[]>>;
  /**
   * Resumes `session` from a checkpoint: import when possible, else summary continuation.
   * Called only after the checkpoint was unsealed and verified and the workspace pinned.
   */
  resume(
    session: ProviderSession,
    data: ResumeData | null,
    continuation: ContinuationInput,
    workspace: string,
    /** Why import is not even tried (e.g. this CLI is older than the one that wrote the session): summary, with this reason. */
    importRefused?: string,
    /** Hears how far the import got through the export's files (bytes done of the total). */
    progress?: ImportProgress,
  ): Promise<Result<ResumeOutcome>>;
}

/** Target-side eligibility checks (git/target-checks.ts over the device records). */
export interface EligibilityInput {
  /** The target's record; null when the account has no such device. */
  device: Device | null;
  online: boolean;
  capabilities: DeviceCapabilities | null;
  requiredProvider: string;
  requiredKeyVersion: number;
  repos: RepoRef[];
}

/** What a device publishes (sealed) with its heartbeat. */
export interface DeviceCapabilities {
  providers: string[];
  /** The CLI version of each available provider that reports one (e.g. "claude-code": "2.1.332"); absent from older devices. */
  providerVersions?: Record<string, string>;
  git: boolean;
  remotes: string[];
  keyVersions: number[];
}

export type TargetCheck = (input: EligibilityInput) => Blocker[];

/** A session as the UI and the checkpoint carry it. */
export interface SessionContent {
  agents: AgentView[];
  transcript: TranscriptEntry[];
}

/** Account operations of an enrolled device (the enrollment modules). */
export interface AccountPort {
  createInvite(): Promise<Result<{ invite: string; expiresAt: number }>>;
  /** Approves pending join requests made with this device's invites. */
  approvePendingJoins(): Promise<void>;
  /** Fetches newly wrapped key versions (after a rotation). */
  refreshKeyRing(): Promise<void>;
  revokeDevice(deviceId: string): Promise<ActionResult>;
  rotateKeys(): Promise<Result<{ keyVersion: number }>>;
}

/** Git remediation acts the user may ask for (never run automatically). */
export interface RemediationPort {
  push(repoPath: string): Promise<ActionResult>;
  commitAll(repoPath: string, message: string): Promise<ActionResult>;
}

export type Clock = () => number;

/** The device's link to its backend: the addresses it uses and whether it reaches them (sync/). */
export interface BackendLinkPort {
  /** The addresses, in the order they are tried. */
  addresses(): string[];
  /** Uses `urls` from now on (reconnecting the push stream) and keeps them in the profile. */
  setAddresses(urls: readonly string[]): void;
  reachability(): BackendReachabilityView;
  /** How long the call waiting longest for the backend's answer has waited, in ms (0 with none waiting). */
  longestWait(): number;
  /** Calls `listener` when reachability changes; returns its unsubscribe. */
  subscribe(listener: (view: BackendReachabilityView) => void): () => void;
}
