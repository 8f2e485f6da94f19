/**
 * The shared lifecycle of sessions whose turns each run a child process of their CLI (Claude Code,
 * Codex, the command agent): input sent during a turn is queued; no process is alive between turns,
 * so quiescing waits only for the running turn and an interrupt ends one turn. Subclasses say how a
 * turn starts (`startTurn`): process-session.ts for a process that reads its prompt on stdin and
 * reports on stdout, codex/codex-session.ts for Codex's app server.
 */
import { realpath } from 'node:fs/promises';
import type { AgentView, TranscriptEntry } from '../../shared/agents.ts';
import type { Failure } from '../../shared/errors.ts';
import type {
  ImportOutcome,
  ProviderCapabilities,
  ProviderEventListener,
  ProviderFailureCode,
  ProviderId,
  ProviderResult,
  ProviderSession,
  ResumeData,
} from '../../shared/provider.ts';
import { SessionState, type Clock } from './session-state.ts';
import { describeExit, type TurnExit, type TurnProcess } from './turn-process.ts';

export const MAIN_AGENT = 'main';

/** What the lifecycle needs of a running turn: whether it started, its exit, and how to interrupt it. */
export type RunningTurn = Pick<TurnProcess, 'started' | 'exited' | 'interrupt'>;

export interface TurnSessionOptions {
  /** The executable (name on PATH or absolute path). */
  command: string;
  /** The environment for every turn (default process.env). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** The device's name, as the adapter's notes in the transcript (seen on every device) name it. */
  deviceName?: string;
}

export abstract class TurnSession implements ProviderSession {
  abstract readonly provider: ProviderId;
  abstract readonly capabilities: ProviderCapabilities;
  protected readonly state: SessionState;
  protected readonly env: NodeJS.ProcessEnv;
  protected readonly command: string;
  /** This device, as the transcript's notes name it. */
  protected readonly deviceName: string;
  protected workspace: string | null = null;
  private stopped = false;
  /** Input waiting for its turn, each with what Baton tells the agent first (after a move). */
  private queue: { text: string; note?: string }[] = [];
  private current: RunningTurn | null = null;
  private interrupting = false;
  /** Why Baton stopped the running turn itself (it passed a cap), said after the agent's name; null otherwise. */
  private stoppedBecause: string | null = null;

  constructor(options: TurnSessionOptions, entryPrefix: string) {
    this.command = options.command;
    this.env = options.env ?? process.env;
    this.deviceName = options.deviceName ?? 'this device';
    this.state = new SessionState(options.clock ?? Date.now, entryPrefix);
    this.state.onTurnCap = (why) => void this.stopTurn(why);
  }

  /** Starts the turn that sends `text` (its process, and what reads its output). */
  protected abstract startTurn(text: string): RunningTurn;
  /** The main agent's name in the agent map. */
  protected abstract mainAgentName(): string;

  /** Called after a turn's process exits; the default reports a failed exit in the transcript. */
  protected afterTurn(exit: TurnExit, interrupted: boolean): void {
    if (!interrupted && (exit.code !== 0 || exit.spawnError !== null)) {
      this.state.note(MAIN_AGENT, `${this.mainAgentName()} ${describeExit(exit)}`);
    }
  }

  async start(workspace: string, prompt: string): Promise<ProviderResult> {
    const refused = this.refuseStart();
    if (refused) return refused;
    this.open(workspace);
    return this.send(prompt);
  }

  async send(text: string, agentNote?: string): Promise<ProviderResult> {
    if (this.stopped) return { ok: false, code: 'stopped', message: `${this.mainAgentName()} was stopped.` };
    if (this.workspace === null) return { ok: false, code: 'not_started', message: `Start ${this.mainAgentName()} first.` };
    this.queue.push(agentNote === undefined ? { text } : { text, note: agentNote });
    if (this.current !== null) return { ok: true, value: undefined };
    return this.runNext();
  }

  /**
   * Ends the running turn because it passed a cap (session-state.ts): as an interrupt, queued input
   * dropped, and the transcript says `why` after the agent's name instead of "Interrupted".
   */
  private async stopTurn(why: string): Promise<void> {
    if (this.current === null || this.stoppedBecause !== null) return;
    this.stoppedBecause = why;
    await this.interrupt();
  }

  /** Ends the running turn (TurnProcess.interrupt); queued input is dropped. */
  async interrupt(): Promise<void> {
    this.queue = [];
    const turn = this.current;
    if (turn === null) return;
    this.interrupting = true;
    await turn.interrupt();
    await this.idle();
  }

  onEvent(listener: ProviderEventListener): () => void {
    return this.state.subscribe(listener);
  }

  isTurnActive(): boolean {
    return this.current !== null || this.queue.length > 0;
  }

  snapshot(): { agents: AgentView[]; transcript: TranscriptEntry[] } {
    return this.state.snapshot();
  }

  abstract exportResumeData(): Promise<ProviderResult<ResumeData>>;
  abstract resumeFromImport(
    data: ResumeData,
    workspace: string,
    progress?: unknown,
    fork?: boolean,
  ): Promise<ProviderResult<ImportOutcome | void>>;

  async resumeFromSummary(prompt: string, workspace: string): Promise<ProviderResult> {
    return this.start(workspace, prompt);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    await this.interrupt();
    this.stopped = true;
    this.state.emit({ type: 'exited', at: this.state.now(), error: null });
  }

  /** A refusal when the session cannot be (re)started, else null. */
  protected refuseStart(): Failure<ProviderFailureCode> | null {
    if (this.stopped) return { ok: false, code: 'stopped', message: `${this.mainAgentName()} was stopped.` };
    if (this.workspace !== null) return { ok: false, code: 'already_started', message: `${this.mainAgentName()} is already running.` };
    return null;
  }

  /**
   * The CLI's session id in `data`, when this session may import it: not started or stopped, and
   * `data` is this provider's, in one of `formats`, naming a session; else the refusal.
   */
  protected importableId(data: ResumeData, formats: readonly string[]): ProviderResult<string> {
    const refused = this.refuseStart();
    if (refused) return refused;
    if (data.provider === this.provider && formats.includes(data.format) && data.sessionId !== null)
      return { ok: true, value: data.sessionId };
    const message = `${this.mainAgentName()} cannot import "${data.provider}" data of format "${data.format}".`;
    return { ok: false, code: 'import_check_failed', message };
  }

  /**
   * The session id to import from `data` into `workspace` (as `importableId`), refused as
   * `import_check_failed` when the workspace cannot be opened.
   */
  protected async importableInto(data: ResumeData, formats: readonly string[], workspace: string): Promise<ProviderResult<string>> {
    const importable = this.importableId(data, formats);
    if (!importable.ok) return importable;
    try {
      await realpath(workspace);
    } catch (error) {
      return { ok: false, code: 'import_check_failed', message: `The target workspace cannot be opened: ${(error as Error).message}.` };
    }
    return importable;
  }

  /** Binds the session to `workspace` and shows its main agent. */
  protected open(workspace: string): void {
    this.workspace = workspace;
    if (!this.state.agent(MAIN_AGENT)) {
      this.state.upsertAgent({ id: MAIN_AGENT, parentId: null, name: this.mainAgentName(), role: 'main', status: 'waiting' });
    }
  }

  /** Resolves when no turn is running. */
  private idle(): Promise<void> {
    if (this.current === null) return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.state.subscribe((event) => {
        if (event.type === 'turn-ended') {
          off();
          resolve();
        }
      });
    });
  }

  private async runNext(): Promise<ProviderResult> {
    const next = this.queue.shift();
    if (next === undefined || this.stopped || this.workspace === null) return { ok: true, value: undefined };
    const { text, note } = next;
    this.state.beginTurn();
    this.state.addEntry('user', MAIN_AGENT, text);
    this.state.setStatus(MAIN_AGENT, 'running');
    // The transcript shows what the person typed; the agent reads Baton's note before it.
    const turn = this.startTurn(note === undefined ? text : `${note}\n\n${text}`);
    this.current = turn;
    void turn.exited.then((exit) => this.finishTurn(exit));
    const spawnError = await turn.started;
    if (spawnError !== null) {
      this.queue = [];
      return { ok: false, code: 'spawn_failed', message: `${this.mainAgentName()} could not start "${this.command}": ${spawnError}` };
    }
    return { ok: true, value: undefined };
  }

  private finishTurn(exit: TurnExit): void {
    const interrupted = this.interrupting;
    this.interrupting = false;
    this.current = null;
    this.afterTurn(exit, interrupted);
    this.state.settleRunning(interrupted ? 'interrupted' : exit.code === 0 ? 'done' : 'failed', MAIN_AGENT);
    this.state.setStatus(MAIN_AGENT, exit.spawnError !== null ? 'failed' : 'waiting');
    const stopped = this.stoppedBecause;
    this.stoppedBecause = null;
    if (stopped !== null) this.state.note(MAIN_AGENT, `${this.mainAgentName()} ${stopped}.`);
    else if (interrupted) this.state.note(MAIN_AGENT, `Interrupted: ${this.mainAgentName()} stopped this turn.`);
    this.state.endTurn(interrupted);
    if (this.queue.length > 0) void this.runNext();
  }
}
