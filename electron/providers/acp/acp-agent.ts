/**
 * What Baton needs to know of one ACP agent beyond the protocol (the ACP provider, acp-session.ts,
 * drives any agent through it): how to start it in ACP mode, what to set on a session for each
 * permission level, and where its sessions live on a device — how one is exported, imported into
 * another HOME and workspace, listed for adoption and read back as a transcript. Each agent's
 * definition is small: copilot/ and qwen/.
 */
import type { TranscriptEntry } from '../../../shared/agents.ts';
import type { ExistingSession, PermissionLevel, ProviderResult, ResumeData, ResumeFile } from '../../../shared/provider.ts';

/** A setting applied to a session after it is opened (every time: a new process, or a loaded session). */
export type AcpSetting = { kind: 'mode'; modeId: string } | { kind: 'config'; configId: string; value: string };

/** An exported session: its small payload and its files by path (the checkpoint streams them). */
export interface AcpExport {
  payload: { sourceCwd: string };
  files: ResumeFile[];
}

/** What an import gave: the session id the next prompt loads, and a note when it became a fork. */
export interface AcpImported {
  sessionId: string;
  forkNote: string | null;
}

/** Where an agent keeps its sessions on a device, and how one moves between devices. */
export interface AcpSessionStore {
  /** The resume data's format, e.g. "copilot/session-state@1". */
  readonly format: string;
  /** The session's files, named for the checkpoint; fails with `export_failed` when it is not here. */
  exportSession(env: NodeJS.ProcessEnv, sessionId: string, workspace: string): Promise<ProviderResult<AcpExport>>;
  /**
   * Writes an exported session into this device's home for `workspace` (its cwd rewritten), after
   * checking it; a session of that id already here that is not an earlier state of it is kept, and
   * this one written as a fork under a new id (also whenever `fork` is set). Fails with
   * `import_check_failed` and changes nothing.
   */
  importSession(
    env: NodeJS.ProcessEnv,
    data: ResumeData,
    workspace: string,
    fork: boolean,
    deviceName: string,
  ): Promise<ProviderResult<AcpImported>>;
  /** This device's sessions of `workspace`, newest first. */
  listSessions(env: NodeJS.ProcessEnv, workspace: string, limit: number): Promise<ExistingSession[]>;
  /** Session `sessionId` of `workspace` as transcript entries, or null when it is not here. */
  readHistory(env: NodeJS.ProcessEnv, workspace: string, sessionId: string): Promise<TranscriptEntry[] | null>;
}

export interface AcpAgent {
  readonly provider: 'copilot' | 'qwen-code';
  /** The executable looked up on PATH. */
  readonly binary: string;
  /** Its arguments for ACP over stdio. */
  readonly args: readonly string[];
  /** The main agent's name in the agent map and the transcript's notes. */
  readonly name: string;
  /** What a session of each level is set to, on top of the answers the adapter gives itself. */
  settings(level: PermissionLevel): AcpSetting[];
  /** How long starting the agent (spawn to `initialize` answered) may take. */
  readonly startTimeoutMs: number;
  readonly store: AcpSessionStore;
}
