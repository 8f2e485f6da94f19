/**
 * The provider contract: one interface every agent adapter (demo, Claude Code, Codex, GitHub
 * Copilot CLI over the Agent Client Protocol, a command-line agent) implements, and the data that
 * crosses a handoff for it. The device runtime drives sessions only through `ProviderSession`; adapters live in electron/providers/.
 */
import { z } from 'zod';
import type { AgentView, TranscriptEntry } from './agents.ts';
import type { DriftWarning, ResumePath } from './api/handoffs.ts';
import type { Result } from './errors.ts';
import type { PermissionAnswer, PermissionRequest } from './permission-request.ts';

export const PROVIDER_IDS = ['demo', 'claude-code', 'codex', 'copilot', 'qwen-code', 'command'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const PROVIDER_LABELS: Readonly<Record<ProviderId, string>> = {
  demo: 'Demo agent',
  'claude-code': 'Claude Code',
  codex: 'Codex',
  copilot: 'GitHub Copilot CLI',
  'qwen-code': 'Qwen Code',
  command: 'Command-line agent',
};

export interface ProviderCapabilities {
  /** The provider's own session state can be exported on the source and imported on the target. */
  checkpointImport: boolean;
  /** The provider reports subagents (agents with a parent) in the agent map. */
  subagents: boolean;
  /** The session's permission level governs what the agent may do (New session offers "Permissions"). */
  permissions: boolean;
  /** This machine's own sessions of the provider (its CLI's files) can be listed and adopted into Baton. */
  adoption: boolean;
}

export const PROVIDER_CAPABILITIES: Readonly<Record<ProviderId, ProviderCapabilities>> = {
  demo: { checkpointImport: true, subagents: true, permissions: true, adoption: false },
  'claude-code': { checkpointImport: true, subagents: true, permissions: true, adoption: true },
  codex: { checkpointImport: true, subagents: false, permissions: true, adoption: true },
  copilot: { checkpointImport: true, subagents: false, permissions: true, adoption: true },
  'qwen-code': { checkpointImport: true, subagents: false, permissions: true, adoption: true },
  command: { checkpointImport: false, subagents: false, permissions: false, adoption: false },
};

/**
 * How much a session's agent may do without asking: `ask` (asks before every edit and command),
 * `workspace` (edits files in the workspace, asks before commands) or `full` (never asks). Each
 * adapter maps it to its CLI's own settings so that what the level does not allow outright is
 * asked (a `permission-request` event), not refused. Chosen at New session, it travels sealed with
 * the session, so a target runs with the same; the ids are stored, so they never change.
 */
export const PermissionLevel = z.enum(['ask', 'workspace', 'full']);
export type PermissionLevel = z.infer<typeof PermissionLevel>;

export const PERMISSION_LABELS: Readonly<Record<PermissionLevel, string>> = {
  ask: 'Ask before edits and commands',
  workspace: 'Edit files, ask before commands',
  full: 'Full access',
};

/** What a session starts with unless the user chooses otherwise: edits in the workspace, commands asked. */
export const DEFAULT_PERMISSION_LEVEL: PermissionLevel = 'workspace';

/** What a provider session is made with, per session (device-wide settings are the adapters' options). */
export interface SessionSettings {
  permission: PermissionLevel;
}

/** One of this machine's own sessions of a CLI provider, read from the CLI's files, which Baton can adopt. */
export interface ExistingSession {
  provider: ProviderId;
  /** The CLI's session id (Claude Code session id, Codex thread id). */
  sessionId: string;
  /** The first user message (first line, shortened), or the id when there is none. */
  title: string;
  /** When the CLI last wrote the session (its file's modification time). */
  updatedAt: number;
}

/** True when `value` names a provider. */
export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

// ---------- events ----------

/** What a running session reports; the runtime folds these into the agent map and transcript. */
export type ProviderEvent =
  /** An agent appeared or changed (same id replaces). */
  | { type: 'agent'; agent: AgentView }
  /** A new transcript entry (entries are never rewritten). */
  | { type: 'transcript'; entry: TranscriptEntry }
  | { type: 'turn-started'; at: number }
  | { type: 'turn-ended'; at: number; interrupted: boolean }
  /**
   * An agent asks before a tool use (shared/permission-request.ts has the whole flow); the CLI waits
   * until answerPermission(request.id, …) or until the adapter reports `permission-cancelled`.
   */
  | { type: 'permission-request'; request: PermissionRequest }
  /** The adapter stopped waiting for an answer to `requestId` (the CLI withdrew it, the turn ended): it is no longer pending. */
  | { type: 'permission-cancelled'; requestId: string; reason: string }
  /** The session can no longer take input; `error` is null on a clean stop. */
  | { type: 'exited'; at: number; error: string | null };

export type ProviderEventListener = (event: ProviderEvent) => void;

// ---------- resume data ----------

/** The largest resume data JSON (UTF-8 bytes; its files not counted: they travel as binary parts) a checkpoint carries. */
export const RESUME_DATA_MAX_BYTES = 8 * 1024 * 1024;

/**
 * One file of a provider's exported session (a Claude transcript, a Codex rollout). It travels as a
 * binary part of the checkpoint, streamed from and to disk, never inlined in JSON, whatever its size.
 */
export interface ResumeFile {
  /** What the file is to its adapter, e.g. "transcript" or "side/subagents/agent-1.jsonl"; unique in one export. */
  name: string;
  /** Where its bytes are on this device: the CLI's own file on the source, the unpacked part on a target. */
  path: string;
  size: number;
}

/**
 * A provider's exported session: opaque to everyone but its adapter, tagged with a format (e.g.
 * "claude-code/transcript@2") so an adapter refuses data it does not understand. The payload is small
 * JSON; the session's bulk is in `files`.
 */
export interface ResumeData {
  provider: ProviderId;
  format: string;
  /** The provider's session id, when it has one (Claude session id, Codex thread id). */
  sessionId: string | null;
  payload: unknown;
  /** The export's files (absent: everything is in the payload, as in earlier formats). */
  files?: ResumeFile[];
}

export const RESUME_FILES_MAX = 10_000;

export const resumeFileSchema = z.strictObject({
  name: z.string().min(1).max(500),
  path: z.string().min(1).max(4096),
  size: z.number().int().nonnegative(),
});

export const resumeDataSchema = z.strictObject({
  provider: z.enum(PROVIDER_IDS),
  format: z.string().min(1).max(100),
  sessionId: z.string().min(1).max(200).nullable(),
  payload: z.json(),
  files: z.array(resumeFileSchema).max(RESUME_FILES_MAX).optional(),
});

/** UTF-8 byte length of a string, without Node or DOM APIs (shared/ runs everywhere). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** Accepts only well-formed, JSON-safe resume data whose JSON is within RESUME_DATA_MAX_BYTES (its files are not counted). */
export function checkResumeData(value: unknown): Result<ResumeData, 'invalid_resume_data' | 'resume_data_too_large'> {
  const parsed = resumeDataSchema.safeParse(value);
  if (!parsed.success)
    return { ok: false, code: 'invalid_resume_data', message: `Resume data is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}` };
  const size = utf8Length(JSON.stringify(parsed.data));
  if (size > RESUME_DATA_MAX_BYTES) {
    return { ok: false, code: 'resume_data_too_large', message: `Resume data is ${size} bytes; the limit is ${RESUME_DATA_MAX_BYTES}.` };
  }
  return { ok: true, value: parsed.data as ResumeData };
}

/** How far an import got through its files: bytes done of the total. */
export type ImportProgress = (doneBytes: number, totalBytes: number) => void;

/**
 * One export file rewritten line by line as the checkpoint reader writes it into its private staging
 * folder (ProviderSession.stagePart): the reader splits the part into lines and writes what `line`
 * gives for each, so the import has no second pass over the bytes.
 */
export interface PartStager {
  /** What to write for one line (`bytes` without its newline, valid during the call): the pieces of one line, none to drop it. */
  line(bytes: Uint8Array): (string | Uint8Array)[];
  /** The part cannot be read line by line (`reason`: e.g. a line over the line limit): no more lines come, and the file is damaged. */
  refuse(reason: string): void;
  /** Every line is in and written: records, beside the staged file, what the import needs to know of it. */
  end(): Promise<void>;
}

// ---------- summary continuation ----------

/** What the summary-continuation prompt is rendered from (the checkpoint's packet and findings). */
export interface ContinuationInput {
  /** The session's title, for "this continues <title>". */
  sessionTitle: string;
  /** The device the session moved from, when known. */
  sourceDeviceName: string | null;
  /**
   * The agent that ran the session until now, when another one continues it (its label, e.g.
   * "Claude Code"): the prompt then says the new agent's memory of the session is this summary.
   */
  previousAgent?: string | null;
  packet: {
    goal: string;
    acceptanceCriteria: string;
    currentState: string;
    nextAction: string;
  };
  /** Facts the target verified itself (e.g. "branch feature/x is at 1a2b3c4"). */
  verifiedFacts: string[];
  /** The drift report (HandoffView.driftWarnings has the same shape). */
  driftWarnings: DriftWarning[];
  /** The last transcript entries, oldest first. */
  transcriptTail: TranscriptEntry[];
  /** After a move, what the agent is told of it (electron/handoff/move-note.ts); absent after a restart. */
  moveNote?: string;
}

/**
 * What an import may say of itself: `note`, e.g. that the CLI's session already here went on
 * without the moved one, was kept, and the moved one was imported as a fork under a new id.
 */
export interface ImportOutcome {
  note?: string;
}

/** Which resume path a handoff took, and why (recorded on the handoff). */
export interface ResumeOutcome {
  path: ResumePath;
  /** Why this path: e.g. "Codex import failed its check: …" or "Command-line agent cannot import"; for an import, its note. */
  reason?: string;
}

// ---------- the session interface ----------

export type ProviderFailureCode =
  /** The binary is missing or would not start. */
  | 'spawn_failed'
  /** The operation needs a started session. */
  | 'not_started'
  /** start/resume on a session that already runs. */
  | 'already_started'
  /** The provider does not support this (e.g. import on the command agent). */
  | 'unsupported'
  /** Exported data is missing or too large to carry. */
  | 'export_failed'
  /** Imported data is the wrong format or fails its resumability checks; summary continuation follows. */
  | 'import_check_failed'
  /** The session was stopped. */
  | 'stopped'
  /** The CLI session to adopt is not on this machine (or not in that workspace). */
  | 'session_not_found'
  /** answerPermission for a request that is not pending (unknown, already answered or cancelled). */
  | 'request_not_pending';

export type ProviderResult<T = void> = Result<T, ProviderFailureCode>;

/** One agent session on this device, driven by the runtime. */
export interface ProviderSession {
  readonly provider: ProviderId;
  readonly capabilities: ProviderCapabilities;
  /** Starts a new session in `workspace` with its first prompt (the first turn begins). */
  start(workspace: string, prompt: string): Promise<ProviderResult>;
  /**
   * Sends user input; queued behind a running turn, it starts the next turn. `agentNote`: what Baton
   * tells the agent first (after a move, where it now runs), read by the agent with the input.
   */
  send(text: string, agentNote?: string): Promise<ProviderResult>;
  /** Ends the running turn now (no-op when idle); resolves when the turn has ended. */
  interrupt(): Promise<void>;
  /** Subscribes to events; returns the unsubscribe function. */
  onEvent(listener: ProviderEventListener): () => void;
  /** True while a turn runs or input is queued. */
  isTurnActive(): boolean;
  /** The current agent map and transcript (what events have built so far). */
  snapshot(): { agents: AgentView[]; transcript: TranscriptEntry[] };
  /**
   * Exports the provider's own session state (providers with checkpointImport): small JSON, and its
   * files named by path, unread (the checkpoint streams them).
   */
  exportResumeData(): Promise<ProviderResult<ResumeData>>;
  /**
   * Rebuilds the session from exported data in `workspace` (its files read as streams), reporting
   * how many of their bytes it has worked through; fails with `import_check_failed` and a reason
   * (nothing changed). On success snapshot() holds the restored agents; the history stays with the
   * runtime (it came in the checkpoint), and events report only the entries added from then on.
   * `fork`: always under a new CLI session id, every file of the one it came from left as it is.
   */
  resumeFromImport(
    data: ResumeData,
    workspace: string,
    progress?: ImportProgress,
    fork?: boolean,
  ): Promise<ProviderResult<ImportOutcome | void>>;
  /**
   * Optional, on a session never started: how export file `file` of `data` (its bytes going to
   * `file.path` in a private staging folder) is rewritten as the checkpoint is read, for an import into
   * `workspace`; null: staged as it is. The bytes are not yet authenticated: it writes nothing but
   * beside `file.path`, and a later resumeFromImport of the same data must give what it gives without it.
   */
  stagePart?(data: ResumeData, file: ResumeFile, workspace: string): Promise<PartStager | null>;
  /** Starts a fresh session whose first turn is the continuation prompt. */
  resumeFromSummary(prompt: string, workspace: string): Promise<ProviderResult>;
  /**
   * Adoption (providers with the `adoption` capability): binds to session `sessionId` of this
   * provider's CLI on this machine, one of `workspace`'s own. Its history is read from the CLI's
   * file into snapshot() (no events for it), nothing is written, and the next message resumes that
   * very session; fails with `session_not_found` when the CLI has no such session for the workspace.
   */
  adoptExisting?(sessionId: string, workspace: string): Promise<ProviderResult>;
  /**
   * Answers pending permission request `requestId` (providers whose CLI asks: every session that
   * emits `permission-request` implements it). Writes the CLI's own answer — allow, or deny with
   * `answer.message` for the agent; `allow-session` is an allow here (the runtime keeps the rule) —
   * and the request is no longer pending. Fails with `request_not_pending` for an id that is not
   * pending (unknown, answered, cancelled), changing nothing. Resolves once the answer is written.
   */
  answerPermission?(requestId: string, answer: PermissionAnswer): Promise<ProviderResult>;
  /** Ends the session and any process it runs; no further events after `exited`. */
  stop(): Promise<void>;
}
