/**
 * JSON-RPC over a child process's stdio, one JSON message per line (as `codex app-server` speaks
 * it): an argv array (never a shell), requests with ids and a timeout each, responses to the
 * server's own requests, notifications both ways, and a clean shutdown — stdin closed, then SIGTERM
 * and SIGKILL if the process lingers. Lines are capped (process-lines.ts): a longer one kills it.
 * Messages carry no `jsonrpc` field (Codex's schema has none).
 */
import { spawn } from 'node:child_process';
import type { Result } from '../../shared/errors.ts';
import { overlongLineText, readLines } from './process-lines.ts';
import type { TurnExit } from './turn-process.ts';

export interface RpcProcessSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** A request the server sent; answer it with `respond` or `respondError`. */
export interface RpcServerRequest {
  id: number | string;
  method: string;
  params: unknown;
}

export interface RpcHandlers {
  notification(method: string, params: unknown): void;
  request(request: RpcServerRequest): void;
  stderrLine?(line: string): void;
}

/** Why a request got no result: the server's error, no answer in time, or the process went away. */
export type RpcFailure = 'rpc_error' | 'timeout' | 'closed';

/** A map of method → [params, result], e.g. ClientRequests in codex/app-server-protocol.ts. */
export type RpcMethods<Methods> = { [M in keyof Methods]: [unknown, unknown] };

const STDERR_TAIL_BYTES = 4096;

type Waiter = { resolve: (result: Result<unknown, RpcFailure>) => void; timer: NodeJS.Timeout };

export class JsonRpcProcess<Methods extends RpcMethods<Methods>> {
  /** Resolves once the process runs, or with the reason it could not start. */
  readonly started: Promise<string | null>;
  /** Resolves when the process has exited and its stdout is read. */
  readonly exited: Promise<TurnExit>;
  private readonly child;
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 1;
  private gone = false;

  constructor(spec: RpcProcessSpec, handlers: RpcHandlers) {
    this.child = spawn(spec.command, [...spec.args], { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const child = this.child;
    let stderrTail = '';
    let spawnError: string | null = null;
    this.started = new Promise((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (error) => resolve(error.message));
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    let stoppedBecause: string | undefined;
    // A line over the cap (process-lines.ts): the server is stopped, and its exit says why.
    const overlong = (stream: 'stdout' | 'stderr') => () => {
      stoppedBecause ??= overlongLineText(stream);
      this.kill();
    };
    const onStderr = handlers.stderrLine;
    if (onStderr) void readLines(child.stderr, onStderr, overlong('stderr'));
    child.stdin.on('error', () => undefined); // the process may exit before reading what was written
    const stdoutDone = readLines(child.stdout, (line) => this.receive(line, handlers), overlong('stdout'));
    this.exited = new Promise((resolve) => {
      let done = false;
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (done) return;
        done = true;
        this.gone = true;
        for (const [id, waiter] of this.waiting) this.settle(id, waiter, { ok: false, code: 'closed', message: 'The process exited.' });
        void stdoutDone.then(() => resolve({ code, signal, spawnError, stderrTail, ...(stoppedBecause ? { stoppedBecause } : {}) }));
      };
      child.once('error', (error) => {
        spawnError = error.message;
        child.stdout.destroy();
        finish(null, null);
      });
      child.once('close', finish);
    });
  }

  /** Sends `method` and resolves with its result, the server's error, or a timeout after `timeoutMs`. */
  request<M extends keyof Methods & string>(
    method: M,
    params: Methods[M][0],
    timeoutMs = 30_000,
  ): Promise<Result<Methods[M][1], RpcFailure>> {
    if (this.gone) return Promise.resolve({ ok: false, code: 'closed', message: 'The process has exited.' });
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const waiter = this.waiting.get(id);
        if (waiter) this.settle(id, waiter, { ok: false, code: 'timeout', message: `${method} got no answer within ${timeoutMs} ms.` });
      }, timeoutMs);
      this.waiting.set(id, { resolve: resolve as Waiter['resolve'], timer });
      this.write({ id, method, params });
    });
  }

  /** Sends a notification (no answer expected). */
  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Answers a server request. */
  respond(id: number | string, result: unknown): void {
    this.write({ id, result });
  }

  /** Refuses a server request. */
  respondError(id: number | string, code: number, message: string): void {
    this.write({ id, error: { code, message } });
  }

  /** Closes stdin (the server exits at end of input), then SIGTERM after `graceMs` and SIGKILL after as long again. */
  async close(graceMs = 2000): Promise<TurnExit> {
    const child = this.child;
    const running = (): boolean => child.exitCode === null && child.signalCode === null;
    child.stdin.end();
    const term = setTimeout(() => running() && child.kill('SIGTERM'), graceMs);
    const kill = setTimeout(() => running() && child.kill('SIGKILL'), 2 * graceMs);
    const exit = await this.exited;
    clearTimeout(term);
    clearTimeout(kill);
    return exit;
  }

  /** Ends the process now (SIGKILL). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private write(message: object): void {
    if (this.gone || !this.child.stdin.writable) return;
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private settle(id: number, waiter: Waiter, result: Result<unknown, RpcFailure>): void {
    clearTimeout(waiter.timer);
    this.waiting.delete(id);
    waiter.resolve(result);
  }

  private receive(line: string, handlers: RpcHandlers): void {
    let message: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: { message?: unknown } };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return; // not a message (a log line that reached stdout)
    }
    if (typeof message !== 'object' || message === null) return;
    const { id, method } = message;
    if (typeof method === 'string') {
      if (typeof id === 'number' || typeof id === 'string') handlers.request({ id, method, params: message.params });
      else handlers.notification(method, message.params);
      return;
    }
    const waiter = typeof id === 'number' ? this.waiting.get(id) : undefined;
    if (waiter === undefined || typeof id !== 'number') return;
    if (message.error !== undefined) {
      const text = typeof message.error?.message === 'string' ? message.error.message : 'unknown error';
      this.settle(id, waiter, { ok: false, code: 'rpc_error', message: text });
    } else this.settle(id, waiter, { ok: true, value: message.result });
  }
}
