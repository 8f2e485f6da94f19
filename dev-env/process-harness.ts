/**
 * Test and demo support: runs `baton backend` and `baton device` as real child processes, waits for
 * their one announcement line, and talks to a device over its web host's WebSocket bridge with the
 * shared device API contract. Used by the runtime's integration tests, the demo and the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import type { DeviceApiEvent, DeviceApiEvents, DeviceApiInput, DeviceApiMethod, DeviceApiOutputs } from '../shared/device-api.ts';
import { DEVICE_API_PATH, TOKEN_PARAM } from '../shared/device-bridge.ts';
import type { Result, Success } from '../shared/errors.ts';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BATON = join(PROJECT_ROOT, 'bin', 'baton.js');

export interface RunningProcess {
  child: ChildProcess;
  /** The value after the announcement prefix (`backend: `, `ui: `). */
  url: string;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (or signal). */
  stop(graceMs?: number): Promise<number | string | null>;
  /** SIGKILL now. */
  kill(): Promise<void>;
}

function exited(child: ChildProcess): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
}

/**
 * Starts `baton <args>` and resolves once stdout shows a line starting with `prefix`. `launcher` is
 * an argv prefix that must exec node in its own place (e.g. `ip netns exec NAME`), so signals sent to
 * the child reach baton itself.
 */
export function startBaton(
  args: string[],
  prefix: string,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 60_000,
  launcher: readonly string[] = [],
): Promise<RunningProcess> {
  return startScript(BATON, args, prefix, env, timeoutMs, launcher);
}

/**
 * Starts `node <script> <args>` in the project folder and resolves once stdout shows a line starting
 * with `prefix`. A TypeScript script runs through tsx's loader in that same process (signals reach it).
 */
export function startScript(
  script: string,
  args: string[],
  prefix: string,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 60_000,
  launcher: readonly string[] = [],
): Promise<RunningProcess> {
  // Tests build the UI themselves (e2e) or need none: a device never builds it on start here.
  const [command, ...prefixArgs] = [...launcher, process.execPath];
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(command!, [...prefixArgs, ...loader, script, ...args], {
    cwd: PROJECT_ROOT,
    env: { BATON_NO_UI_BUILD: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const name = script === BATON ? `baton ${args[0] ?? ''}` : basename(script);
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-20_000);
  });
  child.stdout!.on('data', (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not announce "${prefix}" in time:\n${err}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before announcing:\n${err}`));
    });
    child.stdout!.on('data', function announce() {
      const line = out.split('\n').find((l) => l.startsWith(prefix));
      if (!line) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout!.off('data', announce);
      resolve({
        child,
        url: line.slice(prefix.length).trim(),
        stdout: () => out,
        stderr: () => err,
        stop: async (graceMs = 10_000) => {
          const done = exited(child);
          child.kill('SIGTERM');
          const timer2 = setTimeout(() => child.kill('SIGKILL'), graceMs);
          const code = await done;
          clearTimeout(timer2);
          return code;
        },
        kill: async () => {
          const done = exited(child);
          child.kill('SIGKILL');
          await done;
        },
      });
    });
  });
}

/** The key fingerprint a `baton backend` process printed (`backend key: sha256:…`, with TLS), or null. */
export function announcedKey(backend: RunningProcess): string | null {
  return /^backend key: (sha256:[0-9a-f]{64})$/m.exec(backend.stdout())?.[1] ?? null;
}

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/** The device API methods that answer a Result, and the value of a success. */
type ResultMethod = { [M in DeviceApiMethod]: DeviceApiOutputs[M] extends Result<unknown> ? M : never }[DeviceApiMethod];
type ValueOf<R> = R extends Success<infer V> ? V : never;

/** A device API client over the headless host's WebSocket bridge. */
export class DeviceClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(event: DeviceApiEvent, payload: unknown) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as {
        id?: number;
        ok?: boolean;
        result?: unknown;
        error?: { message: string };
        event?: DeviceApiEvent;
        payload?: unknown;
      };
      if (message.event !== undefined) {
        for (const listener of this.listeners) listener(message.event, message.payload);
        return;
      }
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(message.error?.message ?? 'device API call failed'));
    });
    socket.on('close', () => {
      for (const waiter of this.pending.values()) waiter.reject(new Error('device API socket closed'));
      this.pending.clear();
    });
  }

  /** Connects to the device whose UI address (with its token) is `uiUrl`. */
  static async connect(uiUrl: string): Promise<DeviceClient> {
    const page = new URL(uiUrl);
    const token = page.searchParams.get(TOKEN_PARAM) ?? '';
    const socket = new WebSocket(`ws://${page.host}${DEVICE_API_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new DeviceClient(socket);
  }

  /** Calls one device API method. */
  call<M extends DeviceApiMethod>(method: M, input: DeviceApiInput<M>): Promise<DeviceApiOutputs[M]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.socket.send(JSON.stringify({ id, method, input }));
    });
  }

  /** Calls a method that answers a Result and returns its value; a refusal throws with its code. */
  async take<M extends ResultMethod>(method: M, input: DeviceApiInput<M>): Promise<ValueOf<DeviceApiOutputs[M]>> {
    const result = (await this.call(method, input)) as Result<unknown>;
    if (!result.ok) throw new Error(`${method} refused: ${result.code}: ${result.message}`);
    return result.value as ValueOf<DeviceApiOutputs[M]>;
  }

  /** Listens to one event type; returns the unsubscribe. */
  on<E extends DeviceApiEvent>(event: E, listener: (payload: DeviceApiEvents[E]) => void): () => void {
    const wrapped = (name: DeviceApiEvent, payload: unknown) => {
      if (name === event) listener(payload as DeviceApiEvents[E]);
    };
    this.listeners.add(wrapped);
    return () => this.listeners.delete(wrapped);
  }

  close(): void {
    this.socket.close();
  }
}

/** Polls `probe` until it returns a value other than undefined (or throws after `timeoutMs`). */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
