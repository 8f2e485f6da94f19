/**
 * The Claude Code adapter. Each turn is one headless process in the workspace:
 *   claude -p --output-format stream-json --input-format stream-json --verbose --permission-mode <mode>
 *     [--permission-prompt-tool stdio] [--resume <id>]
 * with the user message written to stdin as one stream-json line; stdin stays open for the turn, for
 * the answers to its permission requests, and is closed at the turn's `result`. Later turns (and the
 * first turn after an import) add `--resume <id>`, the session id taken from the stream's
 * `system`/`init` event. Why per turn rather than one long-lived process: nothing runs between
 * turns, so quiescing waits only for the running turn, an interrupt is a signal to one process, and
 * every turn reads the on-disk transcript — the same thing a checkpoint carries.
 *
 * Permission levels are Claude's own modes (CLAUDE_PERMISSION_MODES), and what a mode does not allow
 * outright is asked: with `--permission-prompt-tool stdio` the CLI sends a `can_use_tool` control
 * request, reported as a `permission-request` event and answered by answerPermission
 * (permission-prompts.ts). A call Claude refused by itself is listed in the result event's
 * `permission_denials`, and the turn says so in the transcript. Claude refuses bypassPermissions to
 * root unless told it runs in a sandbox: for Full access, which the user chose, a root device adds
 * IS_SANDBOX=1 to that turn's environment. */
import type { PermissionAnswer } from '../../../shared/permission-request.ts';
import {
  checkResumeData,
  DEFAULT_PERMISSION_LEVEL,
  PERMISSION_LABELS,
  PROVIDER_CAPABILITIES,
  type ImportOutcome,
  type ImportProgress,
  type PartStager,
  type PermissionLevel,
  type ProviderResult,
  type ResumeData,
  type ResumeFile,
} from '../../../shared/provider.ts';
import { PendingAsks } from '../permissions/pending-asks.ts';
import { MAIN_AGENT, ProcessSession, type ProcessSessionOptions } from '../process-session.ts';
import type { TurnExit } from '../turn-process.ts';
import { MessageFolder } from './message-folder.ts';
import { controlErrorLine, controlResponseLine, permissionRequestOf } from './permission-prompts.ts';
import { CLAUDE_FORMAT, CLAUDE_INLINE_FORMAT, exportClaudeSession, importClaudeSession, stageClaudeFile } from './session-export.ts';
import { findClaudeSession } from './session-list.ts';
import { futureRealpath } from './staged-part.ts';
import { readTranscriptFile } from './transcript-file.ts';

export interface ClaudeCodeOptions extends Partial<ProcessSessionOptions> {
  /** The session's permission level (mapped to Claude's permission mode). */
  permission?: PermissionLevel;
  /** Extra arguments for every turn, e.g. ['--model', 'sonnet']. */
  extraArgs?: readonly string[];
}

/**
 * Claude's `--permission-mode` for each permission level: `default` asks before edits and commands
 * (reads and read-only commands run), `acceptEdits` edits files and runs simple file commands and
 * asks before other commands, `bypassPermissions` never asks. Every level but Full access adds
 * `--permission-prompt-tool stdio`, so what the mode does not allow is asked, not refused.
 */
export const CLAUDE_PERMISSION_MODES: Readonly<Record<PermissionLevel, string>> = {
  ask: 'default',
  workspace: 'acceptEdits',
  full: 'bypassPermissions',
};

type StreamEvent = Record<string, unknown>;

/** The `tool_use_id` of a `permission_denials` item, if it has one. */
function deniedUseId(denial: unknown): string | null {
  const id = ((denial ?? {}) as { tool_use_id?: unknown }).tool_use_id;
  return typeof id === 'string' ? id : null;
}

/** A refused call from the result event's `permission_denials`, e.g. "Write /ws/hello.txt". */
function deniedCall(denial: unknown): string {
  const fields = (denial ?? {}) as { tool_name?: unknown; tool_input?: Record<string, unknown> };
  const name = typeof fields.tool_name === 'string' ? fields.tool_name : 'a tool';
  const input = fields.tool_input ?? {};
  const detail = [input.file_path, input.command, input.path].find((value) => typeof value === 'string');
  return typeof detail === 'string' ? `${name} ${detail.slice(0, 200)}` : name;
}

/** What an error result says: its `result` text, else its `errors[]` (Claude's own lines), else its subtype. */
function errorText(event: StreamEvent): string {
  if (typeof event.result === 'string' && event.result !== '') return event.result;
  const errors = Array.isArray(event.errors) ? event.errors.filter((e): e is string => typeof e === 'string') : [];
  return errors.length > 0 ? errors.join('; ') : String(event.subtype ?? 'error');
}

export class ClaudeCodeSession extends ProcessSession {
  readonly provider = 'claude-code' as const;
  readonly capabilities = PROVIDER_CAPABILITIES['claude-code'];
  private sessionId: string | null = null;
  private readonly folder: MessageFolder;
  private readonly extraArgs: readonly string[];
  private readonly permission: PermissionLevel;
  /** The workspace parts are staged for, resolved once for all of a checkpoint's parts. */
  private stagingFor: { workspace: string; to: Promise<string> } | null = null;
  /** Set when this turn's stream reported its error (so the exit is not reported twice). */
  private turnError = false;
  /** This turn's permission requests awaiting an answer: the control request's tool input, and its tool use. */
  private readonly asks = new PendingAsks<{ input: unknown; toolUseId: string | null }>(this.state);
  /** The agent that made each tool call of this turn (a control request names only the call). */
  private readonly callers = new Map<string, string>();
  /** Tool uses the user denied this turn: the result's `permission_denials` lists them too, and they are not reported again. */
  private readonly userDenied = new Set<string>();

  constructor(options: ClaudeCodeOptions = {}) {
    super({ command: options.command ?? 'claude', env: options.env, clock: options.clock, deviceName: options.deviceName }, 'claude');
    this.extraArgs = options.extraArgs ?? [];
    this.permission = options.permission ?? DEFAULT_PERMISSION_LEVEL;
    this.folder = new MessageFolder(this.state, { userText: false });
  }

  /** The Claude session id (known after the first turn's init event, or after an import). */
  get claudeSessionId(): string | null {
    return this.sessionId;
  }

  protected mainAgentName(): string {
    return 'Claude Code';
  }

  protected invocation(text: string): { args: string[]; stdin: string; env?: NodeJS.ProcessEnv; keepStdinOpen: boolean } {
    this.turnError = false;
    const args = ['-p', '--output-format', 'stream-json', '--input-format', 'stream-json', '--verbose'];
    args.push('--permission-mode', CLAUDE_PERMISSION_MODES[this.permission]);
    if (this.permission !== 'full') args.push('--permission-prompt-tool', 'stdio');
    if (this.sessionId !== null) args.push('--resume', this.sessionId);
    const message = { type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } };
    const root = process.getuid?.() === 0;
    const env = this.permission === 'full' && root ? { ...this.env, IS_SANDBOX: '1' } : undefined;
    this.callers.clear();
    this.userDenied.clear();
    return { args: [...args, ...this.extraArgs], stdin: `${JSON.stringify(message)}\n`, env, keepStdinOpen: true };
  }

  /** Writes the CLI's answer to pending request `requestId` (a control response on the turn's stdin). */
  async answerPermission(requestId: string, answer: PermissionAnswer): Promise<ProviderResult> {
    const ask = this.asks.take(requestId);
    if (ask === undefined)
      return { ok: false, code: 'request_not_pending', message: `Claude Code is not waiting for an answer to ${requestId}.` };
    if (answer.decision === 'deny' && ask.toolUseId !== null) this.userDenied.add(ask.toolUseId);
    if (!this.writeInput(controlResponseLine(requestId, ask.input, answer)))
      return { ok: false, code: 'request_not_pending', message: "Claude Code's turn ended before the answer reached it." };
    return { ok: true, value: undefined };
  }

  /** Reports a failed exit unless the stream already said why (Claude's error result repeats its stderr). */
  protected override afterTurn(exit: TurnExit, interrupted: boolean): void {
    this.asks.cancelAll(interrupted ? 'The turn was interrupted.' : 'The turn ended.');
    if (!this.turnError || exit.spawnError !== null) super.afterTurn(exit, interrupted);
  }

  protected handleLine(line: string): void {
    let event: StreamEvent;
    try {
      event = JSON.parse(line) as StreamEvent;
    } catch {
      return; // not a stream-json line (stray output); ignore it
    }
    if (typeof event.session_id === 'string' && (event.type === 'system' || event.type === 'result')) this.sessionId = event.session_id;
    const parent = typeof event.parent_tool_use_id === 'string' ? event.parent_tool_use_id : null;
    const message = event.message as Record<string, unknown> | undefined;
    if (event.type === 'assistant') this.noteCallers(message?.content, parent);
    if (event.type === 'assistant' || event.type === 'user') this.folder.fold(event.type, message?.content, parent);
    if (event.type === 'control_request') this.controlRequest(event);
    if (event.type === 'control_cancel_request' && typeof event.request_id === 'string')
      this.asks.cancel(event.request_id, 'Claude Code withdrew the request.');
    if (event.type === 'result') {
      this.result(event);
      this.endInput();
    }
  }

  /** Remembers which agent made each tool call of an assistant message. */
  private noteCallers(content: unknown, parent: string | null): void {
    if (!Array.isArray(content)) return;
    const author = parent !== null && this.state.agent(parent) ? parent : MAIN_AGENT;
    for (const block of content as Record<string, unknown>[]) {
      if (block?.type === 'tool_use' && typeof block.id === 'string') this.callers.set(block.id, author);
    }
  }

  /** A `can_use_tool` request becomes a permission request; any other control request is refused at once. */
  private controlRequest(event: StreamEvent): void {
    const requestId = typeof event.request_id === 'string' ? event.request_id : null;
    const request = (event.request ?? {}) as Record<string, unknown>;
    if (requestId === null) return;
    if (request.subtype !== 'can_use_tool') {
      this.writeInput(controlErrorLine(requestId, `Baton does not serve "${String(request.subtype)}" control requests.`));
      return;
    }
    const toolUseId = typeof request.tool_use_id === 'string' ? request.tool_use_id : null;
    const agent = (toolUseId !== null ? this.callers.get(toolUseId) : undefined) ?? MAIN_AGENT;
    void permissionRequestOf(requestId, request, agent, this.workspace).then(
      (asked) => this.asks.add(asked, { input: request.input, toolUseId }),
      (error: unknown) => this.writeInput(controlErrorLine(requestId, `Baton could not read the request: ${String(error)}`)),
    );
  }

  /** The turn's end: an error (unless it was interrupted), and any permission Claude was refused. */
  private result(event: StreamEvent): void {
    const all = Array.isArray(event.permission_denials) ? event.permission_denials : [];
    const denials = all.filter((denial) => !this.userDenied.has(deniedUseId(denial) ?? ''));
    if (denials.length > 0) {
      const calls = denials.map(deniedCall).join(', ');
      const level = PERMISSION_LABELS[this.permission];
      this.state.addEntry('system', MAIN_AGENT, `Claude Code was refused permission for ${calls} (this session's permissions: ${level}).`);
    }
    if (event.is_error === true && event.terminal_reason !== 'aborted_streaming') {
      this.turnError = true;
      this.state.addEntry('system', MAIN_AGENT, `Claude Code reported an error: ${errorText(event)}`);
    }
  }

  /** Exports the session's transcript and side folder by name (format claude-code/transcript@2): the checkpoint streams them. */
  async exportResumeData(): Promise<ProviderResult<ResumeData>> {
    if (this.workspace === null || this.sessionId === null) {
      return { ok: false, code: 'export_failed', message: 'Claude Code has no session to export yet.' };
    }
    const exported = await exportClaudeSession(this.env, this.workspace, this.sessionId);
    if (!exported.ok) return exported;
    const { payload, files } = exported.value;
    const checked = checkResumeData({ provider: this.provider, format: CLAUDE_FORMAT, sessionId: this.sessionId, payload, files });
    if (!checked.ok) return { ok: false, code: 'export_failed', message: checked.message };
    return checked;
  }

  /**
   * Writes the transcript under this workspace's project folder (read line by line, cwd rewritten,
   * resumability checked); the next turn resumes it. A session of that id already here that is not
   * an earlier state of it is kept, and this one imported as a fork (a new id), which the transcript
   * and the outcome's note say. The history itself stays with the runtime.
   */
  async resumeFromImport(
    data: ResumeData,
    workspace: string,
    progress?: ImportProgress,
    fork = false,
  ): Promise<ProviderResult<ImportOutcome | void>> {
    const importable = this.importableId(data, [CLAUDE_FORMAT, CLAUDE_INLINE_FORMAT]);
    if (!importable.ok) return importable;
    const imported = await importClaudeSession(this.env, workspace, importable.value, data, progress, fork, this.deviceName);
    if (!imported.ok) return imported;
    const { agents, sessionId, forkNote } = imported.value;
    this.sessionId = sessionId;
    this.state.restore(agents, [], 0);
    this.open(workspace);
    this.state.addEntry(
      'system',
      MAIN_AGENT,
      forkNote ?? `Claude Code session ${sessionId} was imported on ${this.deviceName}; the next message resumes it.`,
    );
    return { ok: true, value: forkNote === null ? {} : { note: forkNote } };
  }

  /** The transcript and side `.jsonl` files are checked and moved to `workspace` as they are staged; the import then renames them. */
  stagePart(data: ResumeData, file: ResumeFile, workspace: string): Promise<PartStager | null> {
    if (this.stagingFor?.workspace !== workspace) this.stagingFor = { workspace, to: futureRealpath(workspace) };
    return stageClaudeFile(data, file, this.stagingFor.to);
  }

  /** Adopts Claude session `sessionId` of `workspace` on this machine: its history from its transcript; the next message resumes it. */
  async adoptExisting(sessionId: string, workspace: string): Promise<ProviderResult> {
    const refused = this.refuseStart();
    if (refused) return refused;
    const path = await findClaudeSession(this.env, workspace, sessionId);
    const history = path === null ? null : await readTranscriptFile(path).catch(() => null);
    if (history === null)
      return { ok: false, code: 'session_not_found', message: `Claude Code has no session ${sessionId} for ${workspace} on this machine.` };
    this.sessionId = sessionId;
    this.state.restore(history.agents, history.transcript, history.transcript.length);
    this.open(workspace);
    return { ok: true, value: undefined };
  }
}
