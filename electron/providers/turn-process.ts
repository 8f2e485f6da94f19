/**
 * One provider turn as one child process: argv array (never a shell), input written to stdin,
 * stdout (and, for adapters that read it, stderr) delivered line by line, each line capped
 * (process-lines.ts: a longer one stops the process, and its exit says why), a bounded stderr tail
 * kept for error messages.
 */
import { spawn } from 'node:child_process';
import { overlongLineText, readLines } from './process-lines.ts';

export interface TurnSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed — unless `keepStdinOpen`. */
  stdin: string;
  /** Leaves stdin open after `stdin` (a CLI that reads answers there, e.g. Claude's control responses) until `endInput()`. */
  keepStdinOpen?: boolean;
  /** Receives each stderr line as it arrives (the tail is kept either way). */
  onStderrLine?: (line: string) => void;
}

export interface TurnExit {
  /** Exit code, or null when killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started (e.g. ENOENT). */
  spawnError: string | null;
  /** The last few KiB of stderr. */
  stderrTail: string;
  /** Why Baton stopped the process itself (a line over the cap), as a sentence after the CLI's name; absent otherwise. */
  stoppedBecause?: string;
}

export interface TurnProcess {
  /** Resolves once the process is running, or with the reason it could not start. */
  started: Promise<string | null>;
  /** Resolves when the process has exited and its stdout is fully read. */
  exited: Promise<TurnExit>;
  /** SIGINT now, SIGKILL after `graceMs` if it is still running; resolves when it has exited. */
  interrupt(graceMs?: number): Promise<TurnExit>;
  /** Writes `text` to an open stdin; false when stdin is closed (the input ended, or the process is gone). */
  write(text: string): boolean;
  /** Closes stdin (once); the process reads to its end. */
  endInput(): void;
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
  let stoppedBecause: string | undefined;
  const overlong = (stream: 'stdout' | 'stderr') => () => {
    stoppedBecause ??= overlongLineText(stream);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const onStderrLine = spec.onStderrLine;
  if (onStderrLine) void readLines(child.stderr, onStderrLine, overlong('stderr'));
  child.stdin.on('error', () => undefined); // the process may exit before reading its input
  const stdoutDone = readLines(child.stdout, onLine, overlong('stdout'));
  const exited = new Promise<TurnExit>((resolve) => {
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null, output: Promise<void> = stdoutDone): void => {
      if (done) return;
      done = true;
      void output.then(() => resolve({ code, signal, spawnError, stderrTail, ...(stoppedBecause ? { stoppedBecause } : {}) }));
    };
    child.once('error', (error) => {
      spawnError = error.message;
      child.stdout.destroy();
      // A process that never started wrote nothing: its exit does not wait for stdout to close, so
      // the turn is over by the time its start is said to have failed.
      finish(null, null, Promise.resolve());
      resolveStarted(error.message);
    });
    child.once('close', finish);
  });
  if (spec.keepStdinOpen === true) child.stdin.write(spec.stdin);
  else child.stdin.end(spec.stdin);
  const writable = () => child.stdin.writable && !child.stdin.writableEnded && child.exitCode === null && child.signalCode === null;
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
    write(text) {
      if (!writable()) return false;
      child.stdin.write(text);
      return true;
    },
    endInput() {
      if (!child.stdin.writableEnded) child.stdin.end();
    },
  };
}

/** A CLI's own error line: `error: …` (commander, clap), `Error: …`, or a logged `ERROR …`. */
const ERROR_LINE = /^(?:\S+\s+)?(?:error|ERROR)\b|^Error\b/;

/**
 * A one-line description of a failed exit, e.g. "exited with code 2: error: unexpected argument
 * '--x' found": the CLI's own error lines when stderr has any (not the usage text a CLI prints after
 * them), else the last lines of stderr.
 */
export function describeExit(exit: TurnExit): string {
  if (exit.spawnError !== null) return `could not start: ${exit.spawnError}`;
  if (exit.stoppedBecause !== undefined) return exit.stoppedBecause;
  const how = exit.signal !== null ? `was stopped by ${exit.signal}` : `exited with code ${exit.code}`;
  const lines = exit.stderrTail
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const errors = lines.filter((line) => ERROR_LINE.test(line));
  const said = errors.length > 0 ? errors.join(' ').slice(0, 500) : lines.slice(-3).join(' ').slice(-500);
  return said === '' ? how : `${how}: ${said}`;
}
