/**
 * The device API: what the renderer may ask of its device runtime, declared once.
 * Electron carries it over IPC (electron/preload.ts), the headless host over its WebSocket bridge;
 * both validate every input against these schemas before the runtime sees it.
 */
import { z } from 'zod';
import type { AgentView, TranscriptEntry } from './agents.ts';
import type { DeviceStatus } from './api/devices.ts';
import type { ActionResult, Failure, Result } from './errors.ts';
import { AnswerPermissionInput, InterruptTurnInput, type SessionPermissionsView } from './permission-views.ts';
import type { ProviderChange } from './agent-switch.ts';
import type { EligibilityView, HandoffProgressView, HandoffView, MoveBlockView, MoveNoticeView } from './move-views.ts';
import { PermissionLevel, PROVIDER_IDS, type ExistingSession } from './provider.ts';
import type { ReadinessReport } from './readiness.ts';
import { BackendUrls } from './backend-addresses.ts';
import { BackendPins, type BackendKeyProbe, type BackendKeyView } from './backend-keys.ts';

export type {
  EligibilityView,
  HandoffProgressView,
  HandoffView,
  MoveBlockView,
  MoveNoticeView,
  ProgressStep,
  TargetFolderView,
} from './move-views.ts';

// ---------- views the runtime returns ----------

export interface DeviceStatusView {
  enrolled: boolean;
  deviceId: string | null;
  /** The device's name; before enrollment, the name the set-up screen suggests (or null). */
  deviceName: string | null;
  accountId: string | null;
  /** The device's backend addresses, tried in order; before enrollment, the ones the set-up screen suggests (maybe none). */
  backendUrls: string[];
  /** Whether the device reaches its backend (null before enrollment). */
  reachability: BackendReachabilityView | null;
  /** The backend keys it accepts and the last one it refused (null before enrollment). */
  backendKey: BackendKeyView | null;
  /** Set while a join waits for the inviting device. */
  joining: boolean;
  /**
   * When this device learnt it was revoked (the backend refused it as `device_revoked`), else null.
   * A revoked device stops heartbeating and acting; only a new profile joins the account again.
   */
  revokedAt: number | null;
}

/**
 * Whether this device reaches its sync backend. 'unreachable' once a round over every address
 * failed (no connection, a timeout or a gateway's 502/503/504), until one answers again: the UI then says it shows
 * what the device last knew, and acts that need the backend are disabled.
 */
export interface BackendReachabilityView {
  state: 'unknown' | 'reachable' | 'unreachable';
  /** The address that answered last (null before any did). */
  current: string | null;
  /** The addresses the failed round tried, in order (unreachable only). */
  tried: string[];
  /** When the current state began (null while unknown). */
  since: number | null;
  /** How the last attempt failed, in words (unreachable only). */
  lastError: string | null;
}

export interface ProviderView {
  id: string;
  /** e.g. "Demo agent", "Claude Code". */
  label: string;
  available: boolean;
  version: string | null;
  checkpointImport: boolean;
  /** New session offers "Permissions" for it (PROVIDER_CAPABILITIES). */
  permissions: boolean;
  /** This machine's existing sessions of it can be listed and adopted. */
  adoption: boolean;
}

/** One of this machine's own sessions of a CLI, offered for adoption. */
export interface ExistingSessionView extends ExistingSession {
  /** The Baton session that already drives it on this device, if any (adopting it again is refused). */
  batonSessionId: string | null;
}

export interface DeviceView {
  id: string;
  name: string;
  status: DeviceStatus;
  /** True only when known now: a recent heartbeat, seen through a backend this device reaches. */
  online: boolean;
  /**
   * 'online' as above; 'offline' when it stopped (said so on its way out) or its heartbeats stopped;
   * 'unknown' while this device cannot reach the backend (it shows what it last knew) or the device
   * never sent one.
   */
  presence: 'online' | 'offline' | 'unknown';
  /** Since when it is offline (its last heartbeat, or when it stopped), when it is. */
  offlineSince: number | null;
  lastSeenAt: number | null;
  isThisDevice: boolean;
}

/** Why this device may not send input to the session, or null when it may. */
export type InputBlock = {
  code: 'not_owner' | 'quiescing' | 'moved' | 'needs_attention' | 'not_running' | 'revoked';
  message: string;
} | null;

/** Why this device cannot run a session it owns, and the concrete fix. */
export interface AttentionView {
  code: string;
  message: string;
  fix: string;
  /** An activation failed after the transfer: "Retry activation" runs it again. */
  retryActivation: boolean;
}

export interface SessionView {
  id: string;
  title: string;
  workspace: string;
  provider: string;
  /** The session's permission level; null for a provider without levels (the command agent). */
  permission: PermissionLevel | null;
  ownerDeviceId: string;
  ownerName: string;
  generation: number;
  isOwner: boolean;
  /** 'owned' | 'moving' | 'moved' (no longer ours) | 'needs-attention' (activation failed, workspace missing…) | 'remote' (another device owns it). */
  condition: 'owned' | 'moving' | 'moved' | 'needs-attention' | 'remote';
  /** Set exactly when the condition is 'needs-attention'. */
  attention: AttentionView | null;
  inputBlock: InputBlock;
  activeHandoff: HandoffView | null;
  lastHandoff: HandoffView | null;
  /** A blocked move of the session (on every device, across reloads), until a re-check passes or a move starts. */
  blocked: MoveBlockView | null;
  updatedAt: number;
}

/** How many of the newest transcript entries a session's detail carries; earlier ones come page by page. */
export const TRANSCRIPT_WINDOW = 200;
/** The most entries one readTranscript page holds. */
export const TRANSCRIPT_PAGE_MAX = 1000;

export interface SessionDetail extends SessionView, SessionPermissionsView {
  agents: AgentView[];
  /** The newest window of the transcript: entries `transcriptFrom` … `transcriptTotal - 1`. */
  transcript: TranscriptEntry[];
  /** The index of `transcript[0]` in the whole transcript. */
  transcriptFrom: number;
  /** How many entries the whole transcript holds. */
  transcriptTotal: number;
  /** Where the session's agent changed (a move to another agent, Switch agent), oldest first (shared/agent-switch.ts). */
  providerChanges: ProviderChange[];
}

/** Entries `from` … `from + entries.length - 1` of a session's transcript, of `total`. */
export interface TranscriptPage {
  sessionId: string;
  from: number;
  total: number;
  entries: TranscriptEntry[];
}

/** A Move refused by readiness: the whole report, with each blocker's fix. */
export type BlockedMove = Failure<'blocked'> & { report: ReadinessReport };

export type MoveResult = Result<{ handoffId: string }> | BlockedMove;

export type { ActionResult };

// ---------- inputs, validated at the bridge ----------

const SessionId = z.string().min(1).max(64);
const DeviceId = z.string().min(1).max(64);
const Workspace = z.string().trim().min(1, 'Give the folder of the session: a git repository on this device, e.g. ~/src/app.').max(4096);
/** A device's name as a person types it: trimmed, and said in words when it is empty or too long. */
const DeviceName = z
  .string()
  .trim()
  .min(1, 'Give this device a name, e.g. "laptop": the other devices show it by that name.')
  .max(100, 'A device name is at most 100 characters.');
/** A CLI's own session id (a UUID for Claude Code and Codex): no path separators or dots. */
const CliSessionId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/, 'not a CLI session id');

export const inputs = {
  getStatus: z.strictObject({}),
  /** `backendPins`: the keys first contact found (checkBackendKeys) and the person confirmed. */
  createAccount: z.strictObject({ backendUrls: BackendUrls, deviceName: DeviceName, backendPins: BackendPins.optional() }),
  /** `backendUrls`: addresses to use instead of the invite's. */
  joinAccount: z.strictObject({
    invite: z.string().trim().min(1, 'Paste the invite made on a device already in the account.').max(8000),
    deviceName: DeviceName,
    backendUrls: BackendUrls.optional(),
  }),
  listProviders: z.strictObject({}),
  listSessions: z.strictObject({}),
  getSession: z.strictObject({ sessionId: SessionId }),
  /** A page of the session's transcript (the run view loads earlier entries as the reader scrolls up). */
  readTranscript: z.strictObject({
    sessionId: SessionId,
    from: z.number().int().nonnegative(),
    count: z.number().int().positive().max(TRANSCRIPT_PAGE_MAX),
  }),
  startSession: z.strictObject({
    workspace: Workspace,
    provider: z.string().min(1).max(64),
    prompt: z.string().max(100_000),
    title: z.string().max(200).optional(),
    permission: PermissionLevel.optional(),
  }),
  listAgentSessions: z.strictObject({ workspace: Workspace, provider: z.string().min(1).max(64) }),
  adoptSession: z.strictObject({
    workspace: Workspace,
    provider: z.string().min(1).max(64),
    sessionId: CliSessionId,
    title: z.string().max(200).optional(),
    permission: PermissionLevel.optional(),
  }),
  sendMessage: z.strictObject({ sessionId: SessionId, text: z.string().min(1).max(100_000) }),
  answerPermission: AnswerPermissionInput,
  interruptTurn: InterruptTurnInput,
  listDevices: z.strictObject({}),
  moveEligibility: z.strictObject({ sessionId: SessionId }),
  /** Without a target: this device's side only (the Move dialog asks as it opens, before a device is picked). */
  checkReadiness: z.strictObject({ sessionId: SessionId, targetDeviceId: DeviceId.optional() }),
  /** `freshClone`: the target clones the repositories afresh instead of using its checkout of them (which blocked the move); `provider`: the agent the target continues with, when not the session's own (a summary continuation). */
  startMove: z.strictObject({
    sessionId: SessionId,
    targetDeviceId: DeviceId,
    freshClone: z.boolean().optional(),
    provider: z.enum(PROVIDER_IDS).optional(),
  }),
  /** Continues an owned session here with another agent, from a summary (recorded in its history like a move). */
  switchAgent: z.strictObject({ sessionId: SessionId, provider: z.enum(PROVIDER_IDS) }),
  /** Off the owner: asks the owner to move the session to this device (it runs readiness first). */
  moveHere: z.strictObject({ sessionId: SessionId }),
  cancelMove: z.strictObject({ sessionId: SessionId }),
  pushRepo: z.strictObject({ sessionId: SessionId, repo: z.string().min(1).max(4096) }),
  commitAll: z.strictObject({ sessionId: SessionId, repo: z.string().min(1).max(4096), message: z.string().trim().min(1).max(10_000) }),
  retryActivation: z.strictObject({ sessionId: SessionId }),
  handoffHistory: z.strictObject({ sessionId: SessionId }),
  /** A new session owned here, continued from the checkpoint of the session's completed handoff `handoffId`. */
  forkSession: z.strictObject({ sessionId: SessionId, handoffId: z.string().min(1).max(64) }),
  createInvite: z.strictObject({}),
  revokeDevice: z.strictObject({ deviceId: DeviceId }),
  rotateKeys: z.strictObject({}),
  /** The backend addresses this device uses from now on (saved in its profile). */
  setBackendUrls: z.strictObject({ backendUrls: BackendUrls }),
  /** First contact: the key each address presents, nothing sent (shown before an account is made). */
  checkBackendKeys: z.strictObject({ backendUrls: BackendUrls }),
  /** The backend keys this device accepts from now on (the re-pin under Devices → Sync backend; none: the system's trust store). */
  pinBackendKeys: z.strictObject({ backendPins: BackendPins }),
} as const;

export type DeviceApiMethod = keyof typeof inputs;
export type DeviceApiInput<M extends DeviceApiMethod> = z.infer<(typeof inputs)[M]>;

/** What each method resolves to. */
export interface DeviceApiOutputs {
  getStatus: DeviceStatusView;
  createAccount: Result<DeviceStatusView>;
  joinAccount: Result<DeviceStatusView>;
  listProviders: ProviderView[];
  listSessions: SessionView[];
  getSession: SessionDetail | null;
  readTranscript: TranscriptPage | null;
  startSession: Result<SessionView>;
  /** This machine's sessions of the provider for the workspace, newest first. */
  listAgentSessions: Result<ExistingSessionView[]>;
  /** Makes a Baton session (owned here) of one of them; its provider resumes that very session. */
  adoptSession: Result<SessionView>;
  sendMessage: ActionResult;
  answerPermission: ActionResult;
  interruptTurn: ActionResult;
  listDevices: DeviceView[];
  moveEligibility: EligibilityView[];
  checkReadiness: ReadinessReport;
  startMove: MoveResult;
  /** The request reached the backend for the owner (refused at once when the owner is offline). */
  moveHere: ActionResult;
  cancelMove: ActionResult;
  switchAgent: ActionResult;
  /** Each remediation is followed by a fresh evaluation. */
  pushRepo: { result: ActionResult; report: ReadinessReport };
  commitAll: { result: ActionResult; report: ReadinessReport };
  retryActivation: ActionResult;
  handoffHistory: HandoffView[];
  forkSession: Result<SessionView>;
  /** `inviteId` names it in the `inviteUsed` event that says a device joined with it. */
  createInvite: Result<{ invite: string; inviteId: string; expiresAt: number }>;
  revokeDevice: ActionResult;
  rotateKeys: Result<{ keyVersion: number }>;
  setBackendUrls: Result<DeviceStatusView>;
  checkBackendKeys: BackendKeyProbe[];
  pinBackendKeys: Result<DeviceStatusView>;
}

/** The device runtime side of the API: one async function per method. */
export type DeviceApiHandlers = { [M in DeviceApiMethod]: (input: DeviceApiInput<M>) => Promise<DeviceApiOutputs[M]> };

// ---------- events the runtime pushes to the renderer ----------

/**
 * What an agent just did in a session: the transcript from index `transcriptFrom` on (usually the
 * one new entry) and the whole agent map, so a long transcript is not resent on every event. A
 * renderer holding fewer than `transcriptFrom` entries has missed some and reloads the session.
 */
export interface SessionActivity {
  sessionId: string;
  transcriptFrom: number;
  transcript: TranscriptEntry[];
  agents: AgentView[];
}

export interface DeviceApiEvents {
  statusChanged: DeviceStatusView;
  sessionsChanged: SessionView[];
  sessionChanged: SessionDetail;
  sessionActivity: SessionActivity;
  handoffChanged: HandoffView;
  devicesChanged: DeviceView[];
  handoffProgress: HandoffProgressView;
  moveNotice: MoveNoticeView;
  /** A device joined the account with an invite this device made (it approved the join): the invite is used up. */
  inviteUsed: { inviteId: string; deviceName: string; at: number };
  /** Sent by the Electron shell (not the runtime) when its notification about a session was clicked. */
  noticeClicked: { sessionId: string };
}

export type DeviceApiEvent = keyof DeviceApiEvents;
export const EVENT_NAMES: readonly DeviceApiEvent[] = [
  'statusChanged',
  'sessionsChanged',
  'sessionChanged',
  'sessionActivity',
  'handoffChanged',
  'devicesChanged',
  'handoffProgress',
  'moveNotice',
  'inviteUsed',
  'noticeClicked',
];
