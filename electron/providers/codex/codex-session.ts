/**
 * The Codex adapter. Each turn is one `codex exec` process in the workspace, prompt on stdin:
 *   codex exec --json --skip-git-repo-check <sandbox flags> -                      (first turn)
 *   codex exec --json --skip-git-repo-check <sandbox flags> resume <thread id> -   (later turns, and after an import)
 * Exec options go before `resume` (which refuses `--sandbox`) and apply to the resumed turn. Without
 * `--skip-git-repo-check` Codex refuses a workspace that is not a git repository.
 * Its JSONL events (thread.started, turn.*, item.*, error) become the transcript; the agent map is
 * the main agent. Export carries the session's rollout file.
 *
 * Permission levels are Codex's sandbox (CODEX_PERMISSION_FLAGS); `codex exec` cannot ask, so the
 * read-only sandbox refuses every write. Codex shows a refused patch only as an `ERROR` log line on
 * stderr, which the turn reports in the transcript.
 */
import { realpath } from 'node:fs/promises';
import {
  checkResumeData,
  DEFAULT_PERMISSION_LEVEL,
  PERMISSION_LABELS,
  PROVIDER_CAPABILITIES,
  type ImportOutcome,
  type PermissionLevel,
  type ProviderResult,
  type ResumeData,
} from '../../../shared/provider.ts';
import { MAIN_AGENT, ProcessSession, type ProcessSessionOptions } from '../process-session.ts';
import { CODEX_FORMAT, CODEX_INLINE_FORMAT, codexHome, exportRollout, importRollout, readRollout } from './rollout.ts';
import { findCodexSession, rolloutFileText } from './rollout-list.ts';

export interface CodexOptions extends Partial<ProcessSessionOptions> {
  /** The session's permission level (mapped to Codex's sandbox settings). */
  permission?: PermissionLevel;
  /** Extra `codex exec` options for every turn (placed before `resume`), e.g. ['-m', 'gpt-5-codex']. */
  extraArgs?: readonly string[];
}

/** The `codex exec` flags for each permission level. */
export const CODEX_PERMISSION_FLAGS: Readonly<Record<PermissionLevel, readonly string[]>> = {
  ask: ['--sandbox', 'read-only'],
  workspace: ['--sandbox', 'workspace-write'],
  full: ['--dangerously-bypass-approvals-and-sandbox'],
};

/** Codex's log line for a tool call it refused, e.g. `… ERROR codex_core::tools::router: error=patch rejected: …`. */
const REFUSED_CALL = /\sERROR\s+codex_core::tools::router: error=(.*)$/;

type Item = Record<string, unknown>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export class CodexSession extends ProcessSession {
  readonly provider = 'codex' as const;
  readonly capabilities = PROVIDER_CAPABILITIES.codex;
  private threadId: string | null = null;
  /** The thread this turn asked to resume (null on a first turn). */
  private resuming: string | null = null;
  private readonly extraArgs: readonly string[];
  private readonly permission: PermissionLevel;

  constructor(options: CodexOptions = {}) {
    super({ command: options.command ?? 'codex', env: options.env, clock: options.clock }, 'codex');
    this.extraArgs = options.extraArgs ?? [];
    this.permission = options.permission ?? DEFAULT_PERMISSION_LEVEL;
  }

  /** The Codex thread (session) id, known after the first turn's thread.started or an import. */
  get codexThreadId(): string | null {
    return this.threadId;
  }

  protected mainAgentName(): string {
    return 'Codex';
  }

  protected invocation(prompt: string): { args: string[]; stdin: string } {
    this.resuming = this.threadId;
    const resume = this.threadId !== null ? ['resume', this.threadId] : [];
    const options = ['--skip-git-repo-check', ...CODEX_PERMISSION_FLAGS[this.permission], ...this.extraArgs];
    return { args: ['exec', '--json', ...options, ...resume, '-'], stdin: prompt };
  }

  /** A refused tool call (logged on stderr only) becomes a transcript entry. */
  protected override handleStderrLine(line: string): void {
    const refused = REFUSED_CALL.exec(line);
    if (refused === null) return;
    const level = PERMISSION_LABELS[this.permission];
    this.state.addEntry('system', MAIN_AGENT, `Codex was refused a tool call: ${refused[1]} (this session's permissions: ${level}).`);
  }

  /** The thread id; a resumed turn that started another thread (Codex does for an unknown name) says so. */
  private threadStarted(id: string): void {
    if (this.resuming !== null && id !== this.resuming) {
      this.state.addEntry(
        'system',
        MAIN_AGENT,
        `Codex did not resume session ${this.resuming}: it started a new session ${id}, without the earlier history.`,
      );
    }
    this.threadId = id;
  }

  protected handleLine(line: string): void {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // progress text that is not an event
    }
    if (event.type === 'thread.started' && typeof event.thread_id === 'string') this.threadStarted(event.thread_id);
    else if (event.type === 'item.completed' && event.item && typeof event.item === 'object') this.item(event.item as Item);
    else if (event.type === 'turn.failed')
      this.state.addEntry('system', MAIN_AGENT, `Codex turn failed: ${text((event.error as Item | undefined)?.message)}`);
    else if (event.type === 'error') this.state.addEntry('system', MAIN_AGENT, `Codex error: ${text(event.message)}`);
  }

  private item(item: Item): void {
    switch (item.type) {
      case 'agent_message':
        this.state.addEntry('assistant', MAIN_AGENT, text(item.text));
        break;
      case 'command_execution':
        this.state.addEntry(
          'tool',
          MAIN_AGENT,
          `$ ${text(item.command)}${typeof item.exit_code === 'number' ? ` (exit ${item.exit_code})` : ''}`,
        );
        break;
      case 'file_change': {
        const changes = Array.isArray(item.changes)
          ? item.changes.map((c) => `${text((c as Item).kind)} ${text((c as Item).path)}`.trim())
          : [];
        this.state.addEntry('tool', MAIN_AGENT, `Changed files: ${changes.join(', ')}`);
        break;
      }
      case 'mcp_tool_call':
        this.state.addEntry('tool', MAIN_AGENT, `${text(item.server)}.${text(item.tool)}`);
        break;
      case 'web_search':
        this.state.addEntry('tool', MAIN_AGENT, `Searched the web: ${text(item.query)}`);
        break;
      case 'error':
        this.state.addEntry('system', MAIN_AGENT, `Codex error: ${text(item.message)}`);
        break;
      default:
        this.state.touch(MAIN_AGENT); // reasoning, todo lists: activity, not transcript
    }
  }

  /** Exports the session's rollout by name (format codex/rollout@2): the checkpoint streams it. */
  async exportResumeData(): Promise<ProviderResult<ResumeData>> {
    if (this.workspace === null || this.threadId === null)
      return { ok: false, code: 'export_failed', message: 'Codex has no session to export yet.' };
    const exported = await exportRollout(codexHome(this.env), this.threadId, await realpath(this.workspace));
    if (!exported.ok) return exported;
    const { payload, files } = exported.value;
    const checked = checkResumeData({ provider: this.provider, format: CODEX_FORMAT, sessionId: this.threadId, payload, files });
    return checked.ok ? checked : { ok: false, code: 'export_failed', message: checked.message };
  }

  /**
   * Writes the rollout under this device's CODEX_HOME as it came (checked line by line); the next
   * turn runs `exec resume` in `workspace`. A rollout of the thread already here that is not an
   * earlier state of it is kept, and this one imported as a fork (a new thread id), which the
   * transcript and the outcome's note say. The history itself stays with the runtime.
   */
  async resumeFromImport(data: ResumeData, workspace: string): Promise<ProviderResult<ImportOutcome | void>> {
    const refused = this.refuseStart();
    if (refused) return refused;
    const known = data.format === CODEX_FORMAT || data.format === CODEX_INLINE_FORMAT;
    if (data.provider !== this.provider || !known || data.sessionId === null) {
      return { ok: false, code: 'import_check_failed', message: `Codex cannot import "${data.provider}" data of format "${data.format}".` };
    }
    try {
      await realpath(workspace);
    } catch (error) {
      return { ok: false, code: 'import_check_failed', message: `The target workspace cannot be opened: ${(error as Error).message}.` };
    }
    const imported = await importRollout(codexHome(this.env), data.sessionId, data);
    if (!imported.ok) return imported;
    const { threadId, forkNote } = imported.value;
    this.threadId = threadId;
    this.state.restore([], [], 0);
    this.open(workspace);
    this.state.addEntry(
      'system',
      MAIN_AGENT,
      forkNote ?? `Codex session ${threadId} was imported on ${this.deviceName}; the next message resumes it.`,
    );
    return { ok: true, value: forkNote === null ? {} : { note: forkNote } };
  }

  /** Adopts Codex thread `threadId` of `workspace` on this machine: its history from its rollout; the next message runs `exec resume`. */
  async adoptExisting(threadId: string, workspace: string): Promise<ProviderResult> {
    const refused = this.refuseStart();
    if (refused) return refused;
    const path = await findCodexSession(this.env, workspace, threadId);
    const text = path === null ? null : await rolloutFileText(path);
    if (text === null)
      return { ok: false, code: 'session_not_found', message: `Codex has no session ${threadId} for ${workspace} on this machine.` };
    const history = readRollout(text);
    this.threadId = threadId;
    this.state.restore([], history, history.length);
    this.open(workspace);
    return { ok: true, value: undefined };
  }
}
