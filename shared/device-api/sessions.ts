/**
 * The device API for sessions: the providers this device has, the session list and one session's
 * detail with its transcript page by page, starting, adopting or forking a session, a message.
 */
import { z } from 'zod';
import type { AgentView, TranscriptEntry } from '../agents.ts';
import type { ProviderChange } from '../agent-switch.ts';
import type { ActionResult, Result } from '../errors.ts';
import type { HandoffView, MoveBlockView } from '../move-views.ts';
import type { SessionPermissionsView } from '../permission-views.ts';
import { PermissionLevel, type ExistingSession } from '../provider.ts';
import { SessionId } from './ids.ts';

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

const Workspace = z.string().trim().min(1, 'Give the folder of the session: a git repository on this device, e.g. ~/src/app.').max(4096);
const Provider = z.string().min(1).max(64);
/** A CLI's own session id (a UUID for Claude Code and Codex): no path separators or dots. */
const CliSessionId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/, 'not a CLI session id');

export const sessionInputs = {
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
    provider: Provider,
    prompt: z.string().max(100_000),
    title: z.string().max(200).optional(),
    permission: PermissionLevel.optional(),
  }),
  listAgentSessions: z.strictObject({ workspace: Workspace, provider: Provider }),
  adoptSession: z.strictObject({
    workspace: Workspace,
    provider: Provider,
    sessionId: CliSessionId,
    title: z.string().max(200).optional(),
    permission: PermissionLevel.optional(),
  }),
  sendMessage: z.strictObject({ sessionId: SessionId, text: z.string().min(1).max(100_000) }),
  /** A new session owned here, continued from the checkpoint of the session's completed handoff `handoffId`. */
  forkSession: z.strictObject({ sessionId: SessionId, handoffId: z.string().min(1).max(64) }),
} as const;

/** What each method of this area resolves to. */
export interface SessionOutputs {
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
  forkSession: Result<SessionView>;
}
