/**
 * The single way git is run: an argument array through simple-git's raw interface (never a shell
 * string), with a validated working directory, a deadline, bounded output and an injected
 * environment. Every call resolves with a typed result that carries git's exit code; none rejects.
 *
 * A runner is guarded unless it is made `asUser`: every call runs with the settings of
 * repo-config-guard.ts, so no hook, monitor, filter, external diff or other program the
 * repository's config names runs, and a call that may read the working tree or a remote lists
 * the config first (one more short git process) to take back what the repository set.
 *
 * What simple-git does and how it is set here:
 * - It refuses arguments that make git run another program (`--upload-pack`, `-c core.pager=…`,
 *   `-c core.fsmonitor=…`); a refused call is `invalid_argument`. A runner opens a capability only
 *   through `unsafe`, and the guard opens those its own settings need, call by call.
 * - It resolves a failed call with its stdout when git wrote nothing to stderr, so the exit code
 *   and output are taken from its `errors` hook, which sees every finished process.
 * - Its environment guard drops or refuses `GIT_*` keys unless they are allowed, and refuses keys
 *   that name a program unless the matching `unsafe` flag is set; see `childEnvironment`.
 * - Its timeout plugin, with both stream resets off, is a deadline from spawn; the output bound
 *   aborts the call through its abort plugin.
 * A simple-git instance is made per call (about 0.03 ms): the directory, environment, deadline
 * and abort signal are per call, and an instance holds one of each.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { GitConstructError, GitPluginError, simpleGit, type SimpleGitOptions } from 'simple-git';
import { redactCredentials } from '../../shared/url-credentials.ts';
import {
  CONFIG_SCAN_ARGS,
  guardCall,
  guardRefusal,
  needsConfigScan,
  parseConfigList,
  plainRepoConfig,
  transportRefusal,
  type ConfigEntry,
} from './repo-config-guard.ts';

export interface GitResult {
  /** Exit code; -1 when git did not run to completion (see `error`). */
  code: number;
  stdout: string;
  stderr: string;
  /**
   * Why git did not run to completion, when it did not; `transport_refused`: a guarded call's
   * remote named a transport outside the guard's (stderr then starts with a sentence saying which).
   */
  error?: 'invalid_path' | 'invalid_argument' | 'timeout' | 'output_limit' | 'spawn_failed' | 'transport_refused';
}

export interface GitRunOptions {
  /** Working directory: absolute, existing directory, no NUL. */
  cwd: string;
  /** Extra environment variables for this call (merged over the runner's env). */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Max bytes of stdout (and of stderr) before the call is stopped with `output_limit`. */
  maxOutputBytes?: number;
  /** Sees stderr as git writes it (progress of a fetch or clone), before the call ends. */
  onStderr?: (text: string) => void;
}

/** Runs `git <args>`; resolves with a typed result and never rejects. */
export type GitRunner = (args: readonly string[], options: GitRunOptions) => Promise<GitResult>;

/** simple-git's capability flags (`allowUnsafeFsMonitor`, …) a runner opens for every call. */
export type GitUnsafe = NonNullable<SimpleGitOptions['unsafe']>;

export interface GitRunnerConfig {
  /** The environment every call starts from (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** The git executable (defaults to `git` on PATH). */
  gitPath?: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** `key=value` settings passed as `-c` before every call's arguments. */
  config?: readonly string[];
  /** Capabilities simple-git refuses by default that this runner's own `config` needs. */
  unsafe?: GitUnsafe;
  /**
   * Run as the user's own git would: hooks, filters and every program the repository's config
   * names. Only for what the user asked for (Commit, Push); every other runner is guarded
   * (repo-config-guard.ts) and runs none of them.
   */
  asUser?: boolean;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

/** Programs git would start only for interactive use; Baton's git never is, so these are dropped. */
const INTERACTIVE_ENV = new Set(['EDITOR', 'VISUAL', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'PAGER', 'GIT_PAGER', 'GIT_EXTERNAL_DIFF']);

/**
 * The user's own git setup that simple-git guards (transport, config locations): kept, as the
 * user's own git would use it for push and fetch, with the one capability each needs.
 */
const USER_SETUP_ENV: Record<string, keyof GitUnsafe> = {
  GIT_SSH: 'allowUnsafeSshCommand',
  GIT_SSH_COMMAND: 'allowUnsafeSshCommand',
  GIT_ASKPASS: 'allowUnsafeAskPass',
  SSH_ASKPASS: 'allowUnsafeAskPass',
  GIT_PROXY_COMMAND: 'allowUnsafeGitProxy',
  GIT_CONFIG: 'allowUnsafeConfigPaths',
  GIT_CONFIG_GLOBAL: 'allowUnsafeConfigPaths',
  GIT_CONFIG_SYSTEM: 'allowUnsafeConfigPaths',
  PREFIX: 'allowUnsafeConfigPaths',
  GIT_EXEC_PATH: 'allowUnsafeExec',
  GIT_TEMPLATE_DIR: 'allowUnsafeTemplateDir',
  // Config set this way is still checked key by key (tests pin init.defaultBranch so).
  GIT_CONFIG_COUNT: 'allowUnsafeConfigEnvCount',
  GIT_CONFIG_PARAMETERS: 'allowUnsafeConfigEnvCount',
};

/**
 * The child's environment and what simple-git must be told to pass it: every key is the
 * product's choice (the runner's env and the call's), so all are allowed by name, except the
 * interactive programs, which are dropped; user setup keys open only their own capability.
 */
function childEnvironment(env: NodeJS.ProcessEnv): { env: Record<string, string>; allowEnvironment: string[]; unsafe: GitUnsafe } {
  const kept: Record<string, string> = {};
  const unsafe: GitUnsafe = {};
  for (const [key, value] of Object.entries(env)) {
    const name = key.toUpperCase();
    if (value === undefined || INTERACTIVE_ENV.has(name)) continue;
    kept[key] = value;
    const capability = USER_SETUP_ENV[name];
    if (capability) unsafe[capability] = true;
  }
  return { env: kept, allowEnvironment: Object.keys(kept), unsafe };
}

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

/** What simple-git's `errors` hook saw of one finished process. */
interface Finished {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  stoppedBy?: string;
}

const text = (chunks: Buffer[]): string => Buffer.concat(chunks).toString('utf8');

/** Makes the git runner; `config.env` is injected into every call (tests pass a blank-HOME env). */
export function createGitRunner(config: GitRunnerConfig = {}): GitRunner {
  const baseEnv = config.env ?? process.env;
  return async (args, options) => {
    const cwdCheck = checkDirectory(options.cwd);
    if (!cwdCheck.ok) return { code: -1, stdout: '', stderr: cwdCheck.message, error: 'invalid_path' };
    if (args.length === 0 || args.some((a) => typeof a !== 'string' || a.includes('\0'))) {
      return { code: -1, stdout: '', stderr: 'A git argument is missing or contains a NUL character.', error: 'invalid_argument' };
    }
    const env = { ...baseEnv, GIT_TERMINAL_PROMPT: '0', ...options.env };
    if (config.asUser) return spawnGit(config, args, options, env, {});
    const refused = guardRefusal(args, config.config);
    if (refused) return { code: -1, stdout: '', stderr: refused, error: 'invalid_argument' };
    let scanned: ConfigEntry[] | null = null;
    if (needsConfigScan(args) && !plainRepoConfig(options.cwd, env)) {
      // The config as git will read it for this call, listed first; listing it runs nothing.
      const listed = await spawnGit(config, CONFIG_SCAN_ARGS, { cwd: options.cwd }, env, {}, []);
      if (listed.code !== 0) return listed;
      scanned = parseConfigList(listed.stdout);
    }
    const guarded = guardCall(args, env, scanned);
    const result = await spawnGit(config, guarded.args, options, { ...env, ...guarded.env }, guarded.unsafe);
    const refusal = result.code === 0 ? undefined : transportRefusal(result.stderr);
    return refusal === undefined ? result : { ...result, stderr: `${refusal}\n${result.stderr}`, error: 'transport_refused' };
  };
}

/** Starts one git process through simple-git and waits for it (the runner's checks already passed). */
async function spawnGit(
  config: GitRunnerConfig,
  args: readonly string[],
  options: GitRunOptions,
  env: NodeJS.ProcessEnv,
  unsafe: GitUnsafe,
  settings: readonly string[] = config.config ?? [],
): Promise<GitResult> {
  const child = childEnvironment(env);
  const timeout = options.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxOutputBytes ?? config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const overLimit = new AbortController();
  let finished: Finished | undefined;
  try {
    const git = simpleGit({
      baseDir: options.cwd,
      ...(config.gitPath ? { binary: config.gitPath } : {}),
      maxConcurrentProcesses: 1,
      config: [...settings],
      timeout: { block: timeout, stdOut: false, stdErr: false },
      abort: overLimit.signal,
      allowEnvironment: child.allowEnvironment,
      unsafe: { ...child.unsafe, ...unsafe, ...config.unsafe },
      errors(error, result) {
        finished = {
          exitCode: result.exitCode,
          stdout: text(result.stdOut),
          stderr: text(result.stdErr),
          ...(error instanceof GitPluginError && error.plugin ? { stoppedBy: error.plugin } : {}),
        };
        return undefined;
      },
    });
    git.env(child.env).outputHandler((_command, stdout, stderr) => {
      boundOutput(stdout, maxBytes, overLimit);
      boundOutput(stderr, maxBytes, overLimit);
      const onStderr = options.onStderr;
      if (onStderr) stderr.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
      // simple-git waits 50 ms more after a process that wrote nothing closes; both streams
      // have ended by then, so stdout's end counts as output seen.
      stdout.once('end', () => stdout.emit('data', Buffer.alloc(0)));
    });
    await git.raw([...args]);
  } catch (error) {
    // Refused before a process started: the directory went away since it was checked, or
    // simple-git's argument or environment guard refused the call.
    const message = error instanceof Error ? error.message : String(error);
    return { code: -1, stdout: '', stderr: message, error: error instanceof GitConstructError ? 'invalid_path' : 'invalid_argument' };
  }
  return toResult(finished, args, timeout);
}

/** Aborts the call once `stream` has carried more than `maxBytes`. */
function boundOutput(stream: NodeJS.ReadableStream, maxBytes: number, overLimit: AbortController): void {
  let bytes = 0;
  stream.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes && !overLimit.signal.aborted) overLimit.abort();
  });
}

function toResult(finished: Finished | undefined, args: readonly string[], timeout: number): GitResult {
  if (!finished) return { code: -1, stdout: '', stderr: `git ${args[0] ?? ''} did not report how it ended`, error: 'spawn_failed' };
  const { exitCode, stdout, stderr, stoppedBy } = finished;
  if (stoppedBy === 'timeout')
    return { code: -1, stdout, stderr: stderr || `git ${args[0] ?? ''} timed out after ${timeout} ms`, error: 'timeout' };
  if (stoppedBy === 'abort') return { code: -1, stdout, stderr, error: 'output_limit' };
  // A process that could not start closes with a negative errno (or none) and its error in stderr.
  if (exitCode === null || exitCode < 0) {
    return { code: -1, stdout, stderr: stderr.split('\n')[0] || `git ${args[0] ?? ''} did not run`, error: 'spawn_failed' };
  }
  return { code: exitCode, stdout, stderr };
}

/** The first line of a failed call's stderr (or a fallback), for plain messages. */
export function gitFailureText(result: GitResult): string {
  const line = result.stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  // git quotes remote URLs in its errors: their credentials never go further.
  return line === undefined ? `git exited with code ${result.code}` : redactCredentials(line);
}
