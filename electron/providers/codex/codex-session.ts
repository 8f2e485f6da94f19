/**
 * The Codex adapter. Each turn is one `codex app-server` process in the workspace, spoken to over
 * JSON-RPC (codex-turn.ts): the first turn starts a thread, later turns (and the first after an
 * import or an adoption) resume it by id. Its items become the transcript; the agent map is the
 * main agent. Export carries the thread's rollout file.
 *
 * Permission levels are Codex's approval policy and sandbox for the thread (CODEX_THREAD_SETTINGS),
 * given again with every resume. Codex asks before what the level does not allow outright, and the
 * ask becomes a `permission-request` event (codex-approvals.ts) answered with answerPermission.
 */
import { realpath } from 'node:fs/promises';
import type { PermissionAnswer } from '../../../shared/permission-request.ts';
import {
  checkResumeData,
  DEFAULT_PERMISSION_LEVEL,
  PROVIDER_CAPABILITIES,
  type ImportOutcome,
  type PermissionLevel,
  type ProviderResult,
  type ResumeData,
} from '../../../shared/provider.ts';
import { MAIN_AGENT, TurnSession, type RunningTurn, type TurnSessionOptions } from '../turn-session.ts';
import type { AskForApproval, SandboxMode, ThreadItem } from './app-server-protocol.ts';
import { CodexApprovals } from './codex-approvals.ts';
import { itemEntry } from './codex-items.ts';
import { CodexTurn, type CodexTurnEvents } from './codex-turn.ts';
import { CODEX_FORMAT, CODEX_INLINE_FORMAT, codexHome, exportRollout, importRollout, readRollout } from './rollout.ts';
import { findCodexSession, rolloutFileText } from './rollout-list.ts';

export interface CodexOptions extends Partial<TurnSessionOptions> {
  /** The session's permission level (mapped to Codex's approval policy and sandbox). */
  permission?: PermissionLevel;
  /** Extra `codex app-server` options for every turn, e.g. ['-c', 'model="gpt-5-codex"']. */
  extraArgs?: readonly string[];
}

/**
 * Codex's thread settings for each level. `untrusted` asks before every command but the reads
 * Codex knows are safe (ls, cat, rg, git status …) and before every file change; at "workspace" the
 * adapter itself accepts the changes to files inside the workspace. An accepted command runs in the
 * workspace-write sandbox (it may write the workspace and the temp folder; no network). `never`
 * never asks; at Full access nothing is sandboxed.
 */
export const CODEX_THREAD_SETTINGS: Readonly<Record<PermissionLevel, { approvalPolicy: AskForApproval; sandbox: SandboxMode }>> = {
  ask: { approvalPolicy: 'untrusted', sandbox: 'workspace-write' },
  workspace: { approvalPolicy: 'untrusted', sandbox: 'workspace-write' },
  full: { approvalPolicy: 'never', sandbox: 'danger-full-access' },
};

export class CodexSession extends TurnSession {
  readonly provider = 'codex' as const;
  readonly capabilities = PROVIDER_CAPABILITIES.codex;
  private threadId: string | null = null;
  private readonly extraArgs: readonly string[];
  private readonly permission: PermissionLevel;
  private readonly approvals: CodexApprovals;
  /** The running turn's items by id, from item/started (a file change request names its item). */
  private readonly items = new Map<string, ThreadItem>();
  /** Why what is pending is cancelled when the turn settles. */
  private settleReason = 'The turn ended before an answer.';
  private stopping = false;

  constructor(options: CodexOptions = {}) {
    super({ command: options.command ?? 'codex', env: options.env, clock: options.clock, deviceName: options.deviceName }, 'codex');
    this.extraArgs = options.extraArgs ?? [];
    this.permission = options.permission ?? DEFAULT_PERMISSION_LEVEL;
    this.approvals = new CodexApprovals(this.permission, this.state);
  }

  /** The Codex thread (session) id, known once the first turn has opened its thread, or after an import. */
  get codexThreadId(): string | null {
    return this.threadId;
  }

  protected mainAgentName(): string {
    return 'Codex';
  }

  protected startTurn(text: string): RunningTurn {
    const cwd = this.workspace ?? '.';
    this.items.clear();
    this.settleReason = 'The turn ended before an answer.';
    const settings = { cwd, ...CODEX_THREAD_SETTINGS[this.permission] };
    const spec = {
      command: this.command,
      args: ['app-server', ...this.extraArgs],
      cwd,
      env: this.env,
      threadId: this.threadId,
      settings,
      text,
    };
    return new CodexTurn(spec, this.turnEvents());
  }

  /** Answers a pending request: accept, acceptForSession, or decline (its message added to the turn first). */
  answerPermission(requestId: string, answer: PermissionAnswer): Promise<ProviderResult> {
    return this.approvals.answer(requestId, answer);
  }

  /** Ends the running turn, declining what it asked first. */
  override async interrupt(): Promise<void> {
    if (this.isTurnActive() && !this.stopping) this.settleReason = 'The turn was interrupted.';
    await super.interrupt();
  }

  /** Ends the session; what the turn asked is declined as "Codex was stopped." */
  override async stop(): Promise<void> {
    this.stopping = true;
    this.settleReason = 'Codex was stopped.';
    await super.stop();
  }

  private turnEvents(): CodexTurnEvents {
    const say = (text: string): void => void this.state.addEntry('system', MAIN_AGENT, text);
    return {
      thread: (thread, notResumed) => {
        if (this.threadId !== null && thread.id !== this.threadId) {
          say(
            `Codex did not resume session ${this.threadId} (${notResumed ?? 'another thread was opened'}): it started a new session ${thread.id}, without the earlier history.`,
          );
        }
        this.threadId = thread.id;
      },
      itemStarted: (item) => {
        this.items.set(item.id, item);
        this.state.touch(MAIN_AGENT);
      },
      itemCompleted: (item) => {
        const entry = itemEntry(item);
        if (entry === null) this.state.touch(MAIN_AGENT);
        else this.state.addEntry(entry.role, MAIN_AGENT, entry.text);
      },
      problem: say,
      approval: (id, ask, reply) => void this.approvals.ask(id, ask, this.items.get(ask.params.itemId), this.workspace, reply),
      withdrawn: (id) => this.approvals.withdrawn(id),
      settling: () => this.approvals.cancelAll(this.settleReason),
    };
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
   * turn resumes the thread in `workspace`. A rollout of the thread already here that is not an
   * earlier state of it is kept, and this one imported as a fork (a new thread id), which the
   * transcript and the outcome's note say. The history itself stays with the runtime.
   */
  async resumeFromImport(
    data: ResumeData,
    workspace: string,
    _progress?: unknown,
    fork = false,
  ): Promise<ProviderResult<ImportOutcome | void>> {
    const importable = await this.importableInto(data, [CODEX_FORMAT, CODEX_INLINE_FORMAT], workspace);
    if (!importable.ok) return importable;
    const imported = await importRollout(codexHome(this.env), importable.value, data, undefined, fork, this.deviceName);
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

  /** Adopts Codex thread `threadId` of `workspace` on this machine: its history from its rollout; the next message resumes it. */
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
