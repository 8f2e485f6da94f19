/**
 * The ACP provider: any agent that speaks the Agent Client Protocol over stdio (GitHub Copilot CLI,
 * Qwen Code; their definitions are acp-agents.ts), driven through one ProviderSession. Unlike the
 * per-turn CLIs, the agent's process lives across turns — starting one costs seconds — and is
 * stopped gracefully (acp-connection.ts) when the session stops or exports: both agents write the
 * last of their session only then. The first turn opens a session (`session/new`); a turn in a new
 * process, and the first after an import or an adoption, loads it by id (`session/load`, its
 * history replayed by the agent and not shown again). Streamed updates become the transcript
 * (acp-updates.ts), the agent map is the main agent, an interrupt is `session/cancel` (acp-turn.ts),
 * and permission requests go through Baton's flow (acp-permissions.ts). Export carries the agent's
 * own session files, which the agent's store knows how to import into another HOME and workspace.
 */
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
import { describeExit, type TurnExit } from '../turn-process.ts';
import { MAIN_AGENT, TurnSession, type RunningTurn, type TurnSessionOptions } from '../turn-session.ts';
import type { AcpAgent } from './acp-agent.ts';
import { AcpConnection } from './acp-connection.ts';
import { AcpPermissions } from './acp-permissions.ts';
import { AcpTurn, setup, SETUP_TIMEOUT_MS, type AcpTurnHost } from './acp-turn.ts';
import { AcpUpdateFolder } from './acp-updates.ts';

/** How long a stopping agent may take to save its session and exit before it is killed. */
const STOP_GRACE_MS = 10_000;

export interface AcpOptions extends Partial<TurnSessionOptions> {
  permission?: PermissionLevel;
  /** Extra arguments after the agent's own ACP arguments. */
  extraArgs?: readonly string[];
}

export class AcpSession extends TurnSession {
  readonly provider: AcpAgent['provider'];
  readonly capabilities;
  /** The agent's id for this session, once opened (or imported, or adopted). */
  private sessionId: string | null = null;
  private connection: AcpConnection | null = null;
  /** The connection in which the session is open. */
  private openIn: AcpConnection | null = null;
  private replaying = false;
  private settleReason = 'The turn ended before an answer.';
  private readonly permissions: AcpPermissions;
  private readonly folder: AcpUpdateFolder;
  private readonly permission: PermissionLevel;
  private readonly extraArgs: readonly string[];

  constructor(
    private readonly agent: AcpAgent,
    options: AcpOptions = {},
  ) {
    super(
      { command: options.command ?? agent.binary, env: options.env, clock: options.clock, deviceName: options.deviceName },
      agent.provider,
    );
    this.provider = agent.provider;
    this.capabilities = PROVIDER_CAPABILITIES[agent.provider];
    this.permission = options.permission ?? DEFAULT_PERMISSION_LEVEL;
    this.extraArgs = options.extraArgs ?? [];
    this.permissions = new AcpPermissions(agent.name, this.permission, this.state);
    this.folder = new AcpUpdateFolder({
      entry: (role, text) => void this.state.addEntry(role, MAIN_AGENT, text),
      activity: () => this.state.touch(MAIN_AGENT),
    });
  }

  /** The agent's session id, once the first turn opened it (or after an import or an adoption). */
  get agentSessionId(): string | null {
    return this.sessionId;
  }

  protected mainAgentName(): string {
    return this.agent.name;
  }

  protected startTurn(text: string): RunningTurn {
    this.settleReason = 'The turn ended before an answer.';
    const notes = this.permissions.takeNotes();
    return new AcpTurn(this.turnHost(), this.agent.name, notes.length === 0 ? text : `${notes.join('\n')}\n\n${text}`);
  }

  /** Only a start that failed is said here; a turn says its own problems as they happen. */
  protected override afterTurn(exit: TurnExit, interrupted: boolean): void {
    if (!interrupted && exit.spawnError !== null) this.state.addEntry('system', MAIN_AGENT, `${this.agent.name} ${describeExit(exit)}`);
  }

  /** Answers a pending request with the agent's own option (allow once, or reject once). */
  answerPermission(requestId: string, answer: PermissionAnswer): Promise<ProviderResult> {
    return this.permissions.answer(requestId, answer);
  }

  override async interrupt(): Promise<void> {
    if (this.isTurnActive()) this.settleReason = 'The turn was interrupted.';
    await super.interrupt();
  }

  /** Ends the session: the turn interrupted (what it asked cancelled), then the agent stopped gracefully. */
  override async stop(): Promise<void> {
    this.settleReason = `${this.agent.name} was stopped.`;
    await this.interrupt();
    await this.closeAgent();
    await super.stop();
  }

  /** Exports the agent's session files (the agent stopped first, so that it has written them whole). */
  async exportResumeData(): Promise<ProviderResult<ResumeData>> {
    if (this.workspace === null || this.sessionId === null)
      return { ok: false, code: 'export_failed', message: `${this.agent.name} has no session to export yet.` };
    if (!this.isTurnActive()) await this.closeAgent();
    const exported = await this.agent.store.exportSession(this.env, this.sessionId, this.workspace);
    if (!exported.ok) return exported;
    const { payload, files } = exported.value;
    const data = { provider: this.provider, format: this.agent.store.format, sessionId: this.sessionId, payload, files };
    const checked = checkResumeData(data);
    return checked.ok ? checked : { ok: false, code: 'export_failed', message: checked.message };
  }

  /** Writes the moved session into this device's home for `workspace`; the next turn loads it. */
  async resumeFromImport(
    data: ResumeData,
    workspace: string,
    _progress?: unknown,
    fork = false,
  ): Promise<ProviderResult<ImportOutcome | void>> {
    const importable = await this.importableInto(data, [this.agent.store.format], workspace);
    if (!importable.ok) return importable;
    const imported = await this.agent.store.importSession(this.env, data, workspace, fork, this.deviceName);
    if (!imported.ok) return imported;
    const { sessionId, forkNote } = imported.value;
    this.sessionId = sessionId;
    this.state.restore([], [], 0);
    this.open(workspace);
    const note = forkNote ?? `${this.agent.name} session ${sessionId} was imported on ${this.deviceName}; the next message resumes it.`;
    this.state.addEntry('system', MAIN_AGENT, note);
    return { ok: true, value: forkNote === null ? {} : { note: forkNote } };
  }

  /** Adopts the agent's session `sessionId` of `workspace` on this machine: its history from its files; the next message loads it. */
  async adoptExisting(sessionId: string, workspace: string): Promise<ProviderResult> {
    const refused = this.refuseStart();
    if (refused) return refused;
    const history = await this.agent.store.readHistory(this.env, workspace, sessionId);
    if (history === null)
      return {
        ok: false,
        code: 'session_not_found',
        message: `${this.agent.name} has no session ${sessionId} for ${workspace} on this machine.`,
      };
    this.sessionId = sessionId;
    this.state.restore([], history, history.length);
    this.open(workspace);
    return { ok: true, value: undefined };
  }

  /** Stops the agent's process gracefully (it writes the rest of its session), if it runs. */
  private async closeAgent(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    this.openIn = null;
    if (connection?.running) await connection.close(STOP_GRACE_MS);
  }

  private turnHost(): AcpTurnHost {
    const problem = (text: string): void => void this.state.addEntry('system', MAIN_AGENT, text);
    return {
      connect: () => this.connect(problem),
      open: (connection) => this.openSession(connection, problem),
      problem,
      settle: () => {
        this.folder.end();
        this.permissions.cancelAll(this.settleReason);
      },
      discard: (connection) => {
        connection.kill();
        if (this.connection === connection) this.connection = null;
      },
    };
  }

  private async connect(problem: (text: string) => void): Promise<{ connection: AcpConnection; spawned: Promise<string | null> } | null> {
    const running = this.connection;
    if (running?.running) return { connection: running, spawned: Promise.resolve(null) };
    const connection = new AcpConnection(
      { command: this.command, args: [...this.agent.args, ...this.extraArgs], cwd: this.workspace ?? '.', env: this.env },
      {
        update: (notification) => {
          if (!this.replaying && notification.sessionId === this.sessionId) this.folder.take(notification.update);
        },
        permission: (request) => {
          // Qwen Code asks before it announces the call: the request's call names it for the transcript.
          if (!this.replaying && request.sessionId === this.sessionId)
            this.folder.take({ sessionUpdate: 'tool_call_update', ...request.toolCall });
          return this.permissions.ask(request, this.workspace);
        },
      },
    );
    this.connection = connection;
    this.openIn = null;
    void connection.exited.then(() => {
      if (this.connection === connection) this.connection = null;
    });
    if ((await connection.started) !== null) return { connection, spawned: connection.started };
    const capabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };
    const clientInfo = { name: 'baton', title: 'Baton', version: '1' };
    const init = connection.request(
      'initialize',
      { protocolVersion: 1, clientCapabilities: capabilities, clientInfo },
      this.agent.startTimeoutMs,
    );
    if ((await setup(init, this.agent.name, 'initialize', problem)) === null) {
      connection.kill();
      return null;
    }
    return { connection, spawned: Promise.resolve(null) };
  }

  /** The session, opened in `connection` when it is not: loaded by id (a new one when the agent cannot), else new. */
  private async openSession(connection: AcpConnection, problem: (text: string) => void): Promise<string | null> {
    if (this.openIn === connection && this.sessionId !== null) return this.sessionId;
    const cwd = this.workspace ?? '.';
    const name = this.agent.name;
    if (this.sessionId !== null) {
      this.replaying = true;
      const loaded = await connection.request('session/load', { sessionId: this.sessionId, cwd, mcpServers: [] }, SETUP_TIMEOUT_MS);
      this.replaying = false;
      if (!loaded.ok && loaded.code !== 'rpc_error') return setup(Promise.resolve(loaded), name, 'session/load', problem);
      if (!loaded.ok) {
        problem(
          `${name} did not resume session ${this.sessionId} (${loaded.message}): it started a new session, without the earlier history.`,
        );
        this.sessionId = null;
      }
    }
    if (this.sessionId === null) {
      const made = await setup(connection.request('session/new', { cwd, mcpServers: [] }, SETUP_TIMEOUT_MS), name, 'session/new', problem);
      if (made === null) return null;
      this.sessionId = made.sessionId;
    }
    const sessionId = this.sessionId;
    for (const setting of this.agent.settings(this.permission)) {
      const set =
        setting.kind === 'mode'
          ? connection.request('session/set_mode', { sessionId, modeId: setting.modeId }, SETUP_TIMEOUT_MS)
          : connection.request(
              'session/set_config_option',
              { sessionId, configId: setting.configId, value: setting.value },
              SETUP_TIMEOUT_MS,
            );
      if ((await setup(set, name, setting.kind === 'mode' ? 'session/set_mode' : 'session/set_config_option', problem)) === null)
        return null;
    }
    this.openIn = connection;
    return sessionId;
  }
}
