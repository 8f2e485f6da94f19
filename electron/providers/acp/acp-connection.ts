/**
 * One ACP agent process (`copilot --acp`, `qwen --acp`, …) spoken to as an Agent Client Protocol
 * client over its stdio, through the official SDK (@agentclientprotocol/sdk): newline-delimited
 * JSON-RPC, each message capped at ACP_MESSAGE_MAX_BYTES (a longer line ends the connection), the
 * agent's `session/update` notifications and `session/request_permission` requests handed to the
 * caller, every other request of the agent refused (Baton offers it no file system and no terminal).
 *
 * The process is an argv, never a shell, in a process group of its own, so a stop reaches the CLI
 * behind a launcher script too (npm's `copilot` is a Node script that runs the native binary). A
 * graceful close is SIGTERM to the group — both agents then write what they have not yet written
 * of their session and exit, where the end of stdin makes Qwen Code exit at once and lose its last
 * records — and SIGKILL if it lingers. The process counts as gone once its stdout has closed too
 * (every process that held it has exited), or a moment after it exited.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { Result } from '../../../shared/errors.ts';
import { overlongLineText, readLines } from '../process-lines.ts';
import type { TurnExit } from '../turn-process.ts';

/** The longest JSON-RPC message (one line) Baton reads from an agent: 16 MiB, as a session file's line. */
export const ACP_MESSAGE_MAX_BYTES = 16 * 1024 * 1024;

const STDERR_TAIL_BYTES = 4096;
/** How long after the process exited its stdout may stay open (held by something it started). */
const CLOSE_AFTER_EXIT_MS = 3000;

export interface AcpProcessSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface AcpHandlers {
  /** A `session/update` notification, in the order the agent sent them. */
  update(notification: acp.SessionNotification): void;
  /** The agent asks before a tool call; resolves with the outcome to send back. */
  permission(request: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  stderrLine?(line: string): void;
}

/** Why a request got no result: the agent's error, no answer in time, or the process went away. */
export type AcpFailure = 'rpc_error' | 'timeout' | 'closed';

/** The agent's own words for a failed request: its message, and the details it attached. */
function errorText(error: unknown): string {
  if (!(error instanceof acp.RequestError)) return error instanceof Error ? error.message : String(error);
  const data = error.data as { details?: unknown } | undefined;
  return typeof data?.details === 'string' && data.details !== '' ? `${error.message}: ${data.details}` : error.message;
}

export class AcpConnection {
  /** Resolves once the process runs, or with the reason it could not start. */
  readonly started: Promise<string | null>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<TurnExit>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly connection: acp.ClientConnection;
  private gone = false;

  constructor(spec: AcpProcessSpec, handlers: AcpHandlers) {
    this.child = spawn(spec.command, [...spec.args], { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const child = this.child;
    let stderrTail = '';
    let spawnError: string | null = null;
    this.started = new Promise((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (error) => resolve(error.message));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES)));
    let stoppedBecause: string | undefined;
    // Capped as every agent line is (process-lines.ts): a longer one stops the agent, and its exit says why.
    if (handlers.stderrLine)
      void readLines(child.stderr, handlers.stderrLine, () => {
        stoppedBecause ??= overlongLineText('stderr');
        this.kill();
      });
    child.stdin.on('error', () => undefined); // the agent may exit before reading what was written
    const stream = acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      { maxMessageBytes: ACP_MESSAGE_MAX_BYTES },
    );
    const app = acp
      .client({ name: 'baton' })
      .onNotification('session/update', ({ params }) => handlers.update(params))
      .onRequest('session/request_permission', ({ params }) => handlers.permission(params))
      .onRequest('*', ({ method }) => {
        throw acp.RequestError.methodNotFound(method);
      });
    this.connection = app.connect(stream);
    this.exited = new Promise((resolve) => {
      let done = false;
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (done) return;
        done = true;
        this.gone = true;
        this.connection.close();
        resolve({ code, signal, spawnError, stderrTail, ...(stoppedBecause ? { stoppedBecause } : {}) });
      };
      child.once('error', (error) => {
        spawnError = error.message;
        finish(null, null);
      });
      child.once('close', finish);
      child.once('exit', (code, signal) => setTimeout(() => finish(code, signal), CLOSE_AFTER_EXIT_MS).unref());
    });
  }

  /** Sends `method` and resolves with its result, the agent's error, or a timeout after `timeoutMs`. */
  async request<Method extends acp.AgentRequestMethod>(
    method: Method,
    params: acp.AgentRequestParamsByMethod[Method],
    timeoutMs: number,
  ): Promise<Result<acp.AgentRequestResponsesByMethod[Method], AcpFailure>> {
    if (this.gone) return { ok: false, code: 'closed', message: 'The agent has exited.' };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Result<never, AcpFailure>>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, code: 'timeout', message: `${method} got no answer within ${timeoutMs} ms.` }),
        timeoutMs,
      );
    });
    const answer = this.connection.agent.request(method, params).then(
      (value): Result<acp.AgentRequestResponsesByMethod[Method], AcpFailure> => ({ ok: true, value }),
      (error: unknown): Result<never, AcpFailure> =>
        this.gone
          ? { ok: false, code: 'closed', message: 'The agent exited.' }
          : { ok: false, code: 'rpc_error', message: errorText(error) },
    );
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends `session/cancel` for `sessionId` (the agent ends the running prompt with `cancelled`). */
  cancel(sessionId: string): void {
    if (!this.gone) void this.connection.agent.notify('session/cancel', { sessionId }).catch(() => undefined);
  }

  /** True while the process runs. */
  get running(): boolean {
    return !this.gone;
  }

  /** SIGTERM to the group (the agent saves its session and exits), SIGKILL after `graceMs`; resolves once it is gone. */
  async close(graceMs: number): Promise<TurnExit> {
    this.signal('SIGTERM');
    const kill = setTimeout(() => this.signal('SIGKILL'), graceMs);
    const exit = await this.exited;
    clearTimeout(kill);
    this.child.stdin.end();
    return exit;
  }

  /** Ends the process group now (SIGKILL). */
  kill(): void {
    this.signal('SIGKILL');
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (this.gone || pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      this.child.kill(signal);
    }
  }
}
