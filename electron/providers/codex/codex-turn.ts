/**
 * One Codex turn through its app server: `codex app-server [extra args]` started in the workspace,
 * `initialize`, the thread opened (`thread/start`, or `thread/resume` by id — which reads the
 * rollout under CODEX_HOME/sessions, so an imported or adopted thread resumes the same way), one
 * `turn/start` with the message, its notifications until `turn/completed`, then stdin closed and
 * the server gone. Nothing runs between turns, as with the other CLIs.
 *
 * A thread Codex cannot resume (no rollout of that id here, or an id it does not accept) is
 * replaced by a new thread, as `codex exec resume` did, and the turn says so. An interrupt declines
 * the pending approvals, sends `turn/interrupt` and waits for turn/completed; a server that does
 * not finish within the grace time is closed, then killed.
 */
import type { Result } from '../../../shared/errors.ts';
import { JsonRpcProcess, type RpcFailure, type RpcServerRequest } from '../json-rpc-process.ts';
import type { TurnExit } from '../turn-process.ts';
import type { RunningTurn } from '../turn-session.ts';
import type { ClientRequests, CommandDecision, ServerNotifications, Thread, ThreadItem, ThreadSettings } from './app-server-protocol.ts';
import type { CodexAsk, CodexReply } from './codex-approvals.ts';

/** How long a setup request (initialize, thread/start, thread/resume, turn/start) may take. */
const SETUP_TIMEOUT_MS = 30_000;

export interface CodexTurnSpec {
  command: string;
  /** `app-server` and the device's extra app-server options. */
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The thread to resume; null starts a new one. */
  threadId: string | null;
  settings: ThreadSettings;
  text: string;
}

export interface CodexTurnEvents {
  /** The turn runs on `thread`; `notResumed` says why the thread asked for was not resumed (a new one was started). */
  thread(thread: Thread, notResumed: string | null): void;
  itemStarted(item: ThreadItem): void;
  itemCompleted(item: ThreadItem): void;
  /** Something went wrong in Codex's own words ("Codex turn failed: …"). */
  problem(text: string): void;
  /** An approval request (`id` unique in the session); answer it through `reply`. */
  approval(id: string, ask: CodexAsk, reply: CodexReply): void;
  /** Codex answered or dropped request `id` itself. */
  withdrawn(id: string): void;
  /** The turn is being interrupted or has ended: nothing pending will be answered any more. */
  settling(): Promise<void>;
  stderrLine?(line: string): void;
}

/** A running Codex turn: the RunningTurn the session drives. */
export class CodexTurn implements RunningTurn {
  readonly started: Promise<string | null>;
  readonly exited: Promise<TurnExit>;
  private readonly rpc: JsonRpcProcess<ClientRequests>;
  private threadId: string | null = null;
  private turnId: string | null = null;
  private interrupted = false;
  /** The error this turn already reported (turn/completed repeats it). */
  private reported: string | null = null;
  /** This turn's server requests: Codex's id → the session-wide one (Codex numbers them afresh in every process). */
  private readonly requestIds = new Map<number | string, string>();
  private readonly answered = new Set<string>();
  private finishTurn: () => void = () => undefined;
  private readonly completed = new Promise<void>((resolve) => (this.finishTurn = resolve));

  constructor(
    private readonly spec: CodexTurnSpec,
    private readonly events: CodexTurnEvents,
  ) {
    this.rpc = new JsonRpcProcess<ClientRequests>(spec, {
      notification: (method, params) => this.safely(() => this.notified(method, params)),
      request: (request) => this.safely(() => this.asked(request)),
      stderrLine: events.stderrLine,
    });
    this.started = this.rpc.started;
    void this.rpc.exited.then(() => this.finishTurn());
    this.exited = this.run().then(() => this.rpc.exited);
  }

  /** Declines what is pending, asks Codex to end the turn, and resolves once the server has exited. */
  async interrupt(graceMs = 2000): Promise<TurnExit> {
    if (!this.interrupted) {
      this.interrupted = true;
      await this.events.settling();
      if (this.threadId !== null && this.turnId !== null) {
        void this.rpc.request('turn/interrupt', { threadId: this.threadId, turnId: this.turnId }, graceMs);
      }
      setTimeout(() => this.finishTurn(), graceMs).unref();
    }
    return this.exited;
  }

  private async run(): Promise<void> {
    if ((await this.rpc.started) !== null) return;
    const { spec, rpc } = this;
    const clientInfo = { name: 'baton', title: 'Baton', version: '1' };
    const initialized = await rpc.request('initialize', { clientInfo, capabilities: null }, SETUP_TIMEOUT_MS);
    if (!this.check(initialized, 'initialize') || this.interrupted) return this.end();
    rpc.notify('initialized');
    const thread = await this.openThread();
    if (thread === null || this.interrupted) return this.end();
    const input = [{ type: 'text' as const, text: spec.text, text_elements: [] }];
    const turn = await rpc.request('turn/start', { threadId: thread.id, input }, SETUP_TIMEOUT_MS);
    if (!this.check(turn, 'turn/start')) return this.end();
    this.turnId = turn.value.turn.id;
    if (this.interrupted) void rpc.request('turn/interrupt', { threadId: thread.id, turnId: this.turnId }, SETUP_TIMEOUT_MS);
    await this.completed;
    return this.end();
  }

  /** The thread to run on: resumed by id, or new (also when Codex cannot resume the one asked for). */
  private async openThread(): Promise<Thread | null> {
    const { spec, rpc } = this;
    let notResumed: string | null = null;
    if (spec.threadId !== null) {
      const resumed = await rpc.request(
        'thread/resume',
        { ...spec.settings, threadId: spec.threadId, excludeTurns: true },
        SETUP_TIMEOUT_MS,
      );
      if (resumed.ok) return this.opened(resumed.value.thread, null);
      if (resumed.code !== 'rpc_error') {
        this.check(resumed, 'thread/resume');
        return null;
      }
      notResumed = resumed.message;
    }
    const started = await rpc.request('thread/start', spec.settings, SETUP_TIMEOUT_MS);
    return this.check(started, 'thread/start') ? this.opened(started.value.thread, notResumed) : null;
  }

  private opened(thread: Thread, notResumed: string | null): Thread {
    this.threadId = thread.id;
    this.events.thread(thread, notResumed);
    return thread;
  }

  /** True for a result; else reports the failure (a server that exited is reported by its exit) and false. */
  private check<T>(result: Result<T, RpcFailure>, method: string): result is { ok: true; value: T } {
    if (result.ok) return true;
    if (result.code !== 'closed') this.events.problem(`Codex refused ${method}: ${result.message}`);
    return false;
  }

  private async end(): Promise<void> {
    await this.events.settling();
    await this.rpc.close();
  }

  private notified(method: string, params: unknown): void {
    const p = params as ServerNotifications[keyof ServerNotifications];
    if (method === 'item/started') this.events.itemStarted((p as ServerNotifications['item/started']).item);
    else if (method === 'item/completed') this.events.itemCompleted((p as ServerNotifications['item/completed']).item);
    else if (method === 'turn/completed') {
      const { turn } = p as ServerNotifications['turn/completed'];
      const reason = turn.error?.message ?? 'no reason given';
      if (turn.status === 'failed' && reason !== this.reported) this.events.problem(`Codex turn failed: ${reason}`);
      this.finishTurn();
    } else if (method === 'error') {
      const { error, willRetry } = p as ServerNotifications['error'];
      if (willRetry) return;
      this.events.problem(`Codex error: ${error.message}`);
      this.reported = error.message;
    } else if (method === 'serverRequest/resolved') {
      const id = this.requestIds.get((p as ServerNotifications['serverRequest/resolved']).requestId);
      if (id !== undefined && !this.answered.has(id)) this.events.withdrawn(id);
    }
  }

  /** Runs a handler; one that throws is reported in the transcript, not lost on the stdout reader. */
  private safely(handle: () => void): void {
    try {
      handle();
    } catch (error) {
      this.events.problem(`Could not read a message of Codex: ${(error as Error).message}`);
    }
  }

  private asked(request: RpcServerRequest): void {
    const method = request.method;
    if (method !== 'item/commandExecution/requestApproval' && method !== 'item/fileChange/requestApproval') {
      this.rpc.respondError(request.id, -32601, `Baton does not answer ${method}.`);
      return;
    }
    const id = `${(request.params as { turnId?: string } | null)?.turnId ?? this.turnId}:${request.id}`;
    this.requestIds.set(request.id, id);
    const reply: CodexReply = async (decision: CommandDecision, steer?: string) => {
      this.answered.add(id);
      if (steer !== undefined && this.threadId !== null && this.turnId !== null) {
        const input = [{ type: 'text' as const, text: steer, text_elements: [] }];
        await this.rpc.request('turn/steer', { threadId: this.threadId, expectedTurnId: this.turnId, input }, SETUP_TIMEOUT_MS);
      }
      this.rpc.respond(request.id, { decision });
    };
    this.events.approval(id, { method, params: request.params } as CodexAsk, reply);
  }
}
