/**
 * The shared lifecycle of CLI-backed sessions (Claude Code, Codex, the command agent): every turn is
 * one child process; input sent during a turn is queued; no process is alive between turns, so
 * quiescing waits only for the running turn and an interrupt signals one process.
 * Subclasses say how a turn is invoked and how its stdout lines become events.
 */
import type { AgentView, TranscriptEntry } from '../../shared/agents.ts';
import type {
  ImportOutcome,
  ProviderCapabilities,
  ProviderEventListener,
  ProviderId,
  ProviderResult,
  ProviderSession,
  ResumeData,
} from '../../shared/provider.ts';
import { SessionState, type Clock } from './session-state.ts';
import { describeExit, startTurnProcess, type TurnExit, type TurnProcess } from './turn-process.ts';

export const MAIN_AGENT = 'main';

export interface ProcessSessionOptions {
  /** The executable (name on PATH or absolute path). */
  command: string;
  /** The environment for every turn (default process.env). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** The device's name, as the adapter's notes in the transcript (seen on every device) name it. */
  deviceName?: string;
}

export abstract class ProcessSession implements ProviderSession {
  abstract readonly provider: ProviderId;
  abstract readonly capabilities: ProviderCapabilities;
  protected readonly state: SessionState;
  protected readonly env: NodeJS.ProcessEnv;
  protected readonly command: string;
  /** This device, as the transcript's notes name it. */
  protected readonly deviceName: string;
  protected workspace: string | null = null;
  private stopped = false;
  private queue: string[] = [];
  private current: TurnProcess | null = null;
  private interrupting = false;

  constructor(options: ProcessSessionOptions, entryPrefix: string) {
    this.command = options.command;
    this.env = options.env ?? process.env;
    this.deviceName = options.deviceName ?? 'this device';
    this.state = new SessionState(options.clock ?? Date.now, entryPrefix);
  }

  /**
   * The argv (after the command), stdin and (when it differs from the session's) environment of a
   * turn that sends `text`; `keepStdinOpen` leaves stdin open for writeInput() until endInput().
   */
  protected abstract invocation(text: string): { args: string[]; stdin: string; env?: NodeJS.ProcessEnv; keepStdinOpen?: boolean };
  /** Folds one stdout line of the running turn into the session. */
  protected abstract handleLine(line: string): void;
  /** Reads one stderr line of the running turn; adapters whose CLI reports there override it. */
  protected handleStderrLine?(line: string): void;
  /** The main agent's name in the agent map. */
  protected abstract mainAgentName(): string;

  /** Called after a turn's process exits; the default reports a failed exit in the transcript. */
  protected afterTurn(exit: TurnExit, interrupted: boolean): void {
    if (!interrupted && (exit.code !== 0 || exit.spawnError !== null)) {
      this.state.addEntry('system', MAIN_AGENT, `${this.mainAgentName()} ${describeExit(exit)}`);
    }
  }

  async start(workspace: string, prompt: string): Promise<ProviderResult> {
    const refused = this.refuseStart();
    if (refused) return refused;
    this.open(workspace);
    return this.send(prompt);
  }

  async send(text: string): Promise<ProviderResult> {
    if (this.stopped) return { ok: false, code: 'stopped', message: `${this.mainAgentName()} was stopped.` };
    if (this.workspace === null) return { ok: false, code: 'not_started', message: `Start ${this.mainAgentName()} first.` };
    this.queue.push(text);
    if (this.current !== null) return { ok: true, value: undefined };
    return this.runNext();
  }

  /** Ends the running turn (SIGINT, then SIGKILL); queued input is dropped. */
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
  abstract resumeFromImport(data: ResumeData, workspace: string): Promise<ProviderResult<ImportOutcome | void>>;

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
  protected refuseStart(): ProviderResult | null {
    if (this.stopped) return { ok: false, code: 'stopped', message: `${this.mainAgentName()} was stopped.` };
    if (this.workspace !== null) return { ok: false, code: 'already_started', message: `${this.mainAgentName()} is already running.` };
    return null;
  }

  /** Writes to the running turn's open stdin; false when there is none. */
  protected writeInput(text: string): boolean {
    return this.current?.write(text) ?? false;
  }

  /** Closes the running turn's stdin (its CLI then finishes). */
  protected endInput(): void {
    this.current?.endInput();
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
    const text = this.queue.shift();
    if (text === undefined || this.stopped || this.workspace === null) return { ok: true, value: undefined };
    this.state.beginTurn();
    this.state.addEntry('user', MAIN_AGENT, text);
    this.state.setStatus(MAIN_AGENT, 'running');
    const { args, stdin, env, keepStdinOpen } = this.invocation(text);
    const onStderrLine = this.handleStderrLine ? (line: string) => this.safeHandle(line, 'stderr') : undefined;
    const spec = { command: this.command, args, cwd: this.workspace, env: env ?? this.env, stdin, keepStdinOpen, onStderrLine };
    const turn = startTurnProcess(spec, (line) => this.safeHandle(line, 'stdout'));
    this.current = turn;
    void turn.exited.then((exit) => this.finishTurn(exit));
    const spawnError = await turn.started;
    if (spawnError !== null) {
      this.queue = [];
      return { ok: false, code: 'spawn_failed', message: `${this.mainAgentName()} could not start "${this.command}": ${spawnError}` };
    }
    return { ok: true, value: undefined };
  }

  private safeHandle(line: string, stream: 'stdout' | 'stderr'): void {
    try {
      if (stream === 'stdout') this.handleLine(line);
      else this.handleStderrLine?.(line);
    } catch (error) {
      this.state.addEntry('system', MAIN_AGENT, `Could not read a line of ${this.mainAgentName()} output: ${(error as Error).message}`);
    }
  }

  private finishTurn(exit: TurnExit): void {
    const interrupted = this.interrupting;
    this.interrupting = false;
    this.current = null;
    this.afterTurn(exit, interrupted);
    this.state.settleRunning(interrupted ? 'interrupted' : exit.code === 0 ? 'done' : 'failed', MAIN_AGENT);
    this.state.setStatus(MAIN_AGENT, exit.spawnError !== null ? 'failed' : 'waiting');
    if (interrupted) this.state.addEntry('system', MAIN_AGENT, `Interrupted: ${this.mainAgentName()} stopped this turn.`);
    this.state.endTurn(interrupted);
    if (this.queue.length > 0) void this.runNext();
  }
}
