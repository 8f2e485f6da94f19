/**
 * The single way git is run: an argument array through execFile (never a shell string), with a
 * validated working directory, a timeout, bounded output and an injected environment.
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';

export interface GitResult {
  /** Exit code; -1 when git did not run to completion (see `error`). */
  code: number;
  stdout: string;
  stderr: string;
  /** Why git did not run to completion, when it did not. */
  error?: 'invalid_path' | 'invalid_argument' | 'timeout' | 'output_limit' | 'spawn_failed';
}

export interface GitRunOptions {
  /** Working directory: absolute, existing directory, no NUL. */
  cwd: string;
  /** Extra environment variables for this call (merged over the runner's env). */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Max bytes of stdout (and of stderr) before the call is stopped with `output_limit`. */
  maxOutputBytes?: number;
}

/** Runs `git <args>`; resolves with a typed result and never rejects. */
export type GitRunner = (args: readonly string[], options: GitRunOptions) => Promise<GitResult>;

export interface GitRunnerConfig {
  /** The environment every call starts from (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** The git executable (defaults to `git` on PATH). */
  gitPath?: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

export type PathCheck = { ok: true } | { ok: false; message: string };

/** Checks that `path` is an absolute path without NUL naming an existing directory. */
export function checkDirectory(path: string): PathCheck {
  if (typeof path !== 'string' || path.length === 0) return { ok: false, message: 'The path is empty.' };
  if (path.includes('\0')) return { ok: false, message: 'The path contains a NUL character.' };
  if (!isAbsolute(path)) return { ok: false, message: `The path ${path} is not absolute.` };
  try {
    if (!statSync(path).isDirectory()) return { ok: false, message: `The path ${path} is not a directory.` };
  } catch {
    return { ok: false, message: `The path ${path} does not exist.` };
  }
  return { ok: true };
}

/** Makes the git runner; `config.env` is injected into every call (tests pass a blank-HOME env). */
export function createGitRunner(config: GitRunnerConfig = {}): GitRunner {
  const baseEnv = config.env ?? process.env;
  const gitPath = config.gitPath ?? 'git';
  return (args, options) => {
    const cwdCheck = checkDirectory(options.cwd);
    if (!cwdCheck.ok) return Promise.resolve({ code: -1, stdout: '', stderr: cwdCheck.message, error: 'invalid_path' });
    if (args.some((a) => typeof a !== 'string' || a.includes('\0'))) {
      return Promise.resolve({ code: -1, stdout: '', stderr: 'A git argument contains a NUL character.', error: 'invalid_argument' });
    }
    const env = { ...baseEnv, GIT_TERMINAL_PROMPT: '0', ...options.env };
    const timeout = options.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBuffer = options.maxOutputBytes ?? config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    return new Promise<GitResult>((resolve) => {
      execFile(gitPath, [...args], { cwd: options.cwd, env, timeout, maxBuffer, encoding: 'utf8', windowsHide: true }, (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout, stderr });
        const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean; signal?: string | null };
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          return resolve({ code: -1, stdout, stderr, error: 'output_limit' });
        }
        if (e.killed && e.signal) {
          return resolve({ code: -1, stdout, stderr: stderr || `git ${args[0] ?? ''} timed out after ${timeout} ms`, error: 'timeout' });
        }
        if (typeof e.code === 'number') return resolve({ code: e.code, stdout, stderr });
        resolve({ code: -1, stdout, stderr: stderr || e.message, error: 'spawn_failed' });
      });
    });
  };
}

/** The first line of a failed call's stderr (or a fallback), for plain messages. */
export function gitFailureText(result: GitResult): string {
  const line = result.stderr.split('\n').map((l) => l.trim()).find((l) => l.length > 0);
  return line ?? `git exited with code ${result.code}`;
}
