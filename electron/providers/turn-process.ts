/**
 * One provider turn as one child process: argv array (never a shell), input written to stdin,
 * stdout delivered line by line, a bounded stderr tail kept for error messages.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface TurnSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. */
  stdin: string;
}

export interface TurnExit {
  /** Exit code, or null when killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started (e.g. ENOENT). */
  spawnError: string | null;
  /** The last few KiB of stderr. */
  stderrTail: string;
}

export interface TurnProcess {
  /** Resolves once the process is running, or with the reason it could not start. */
  started: Promise<string | null>;
  /** Resolves when the process has exited and its stdout is fully read. */
  exited: Promise<TurnExit>;
  /** SIGINT now, SIGKILL after `graceMs` if it is still running; resolves when it has exited. */
  interrupt(graceMs?: number): Promise<TurnExit>;
}

const STDERR_TAIL_BYTES = 4096;

/** Starts one turn process; `onLine` receives each stdout line as it arrives. */
export function startTurnProcess(spec: TurnSpec, onLine: (line: string) => void): TurnProcess {
  const child = spawn(spec.command, [...spec.args], { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderrTail = '';
  let spawnError: string | null = null;
  let resolveStarted: (reason: string | null) => void = () => undefined;
  const started = new Promise<string | null>((resolve) => {
    resolveStarted = resolve;
  });
  child.once('spawn', () => resolveStarted(null));
  child.stderr.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  child.stdin.on('error', () => undefined); // the process may exit before reading its input
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  lines.on('line', onLine);
  const stdoutDone = new Promise<void>((resolve) => lines.once('close', () => resolve()));
  const exited = new Promise<TurnExit>((resolve) => {
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (done) return;
      done = true;
      void stdoutDone.then(() => resolve({ code, signal, spawnError, stderrTail }));
    };
    child.once('error', (error) => {
      spawnError = error.message;
      resolveStarted(error.message);
      lines.close();
      finish(null, null);
    });
    child.once('close', finish);
  });
  child.stdin.end(spec.stdin);
  return {
    started,
    exited,
    async interrupt(graceMs = 2000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** A one-line description of a failed exit, e.g. "exited with code 1: <stderr tail>". */
export function describeExit(exit: TurnExit): string {
  if (exit.spawnError !== null) return `could not start: ${exit.spawnError}`;
  const how = exit.signal !== null ? `was stopped by ${exit.signal}` : `exited with code ${exit.code}`;
  const tail = exit.stderrTail.trim().split('\n').slice(-3).join(' ').slice(-500);
  return tail === '' ? how : `${how}: ${tail}`;
}
