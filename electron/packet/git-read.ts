/**
 * The only way packet code touches git: a read-only allow-list of subcommands and flags, run as an
 * argument array through the shared runner (electron/git/git-runner.ts). Anything else is refused
 * as a value before a process starts.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { createGitRunner } from '../git/git-runner.ts';

/** What one git process returned. */
export interface GitExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `git <args>` in `cwd`; injected so tests and benches can count or swap processes. */
export type GitExec = (args: readonly string[], cwd: string) => Promise<GitExecResult>;

export type GitReadResult =
  | { ok: true; stdout: string }
  | { ok: false; code: 'git_read_refused'; message: string }
  | { ok: false; code: 'git_read_failed'; message: string; exitCode: number };

/** Read-only subcommands and, for each, the flags it may carry; everything else is refused. */
const ALLOWED: Record<string, { flags: readonly string[]; operands: boolean; exact?: readonly string[] }> = {
  // `git branch NAME` creates a branch, so only the one read form is allowed.
  branch: { flags: [], operands: false, exact: ['--show-current'] },
  'rev-parse': {
    flags: [
      '--show-toplevel',
      '--verify',
      '--quiet',
      '-q',
      '--abbrev-ref',
      '--symbolic-full-name',
      '--git-dir',
      '--is-inside-work-tree',
      '--end-of-options',
    ],
    operands: true,
  },
  'merge-base': { flags: ['--is-ancestor'], operands: true },
  // `diff --output=FILE` writes, so flags are listed one by one.
  diff: { flags: ['--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-color', '--'], operands: true },
  status: {
    flags: [
      '--porcelain',
      '--porcelain=v1',
      '-z',
      '--untracked-files=all',
      '--untracked-files=normal',
      '--no-renames',
      '--ignore-submodules',
    ],
    operands: false,
  },
  'show-ref': { flags: ['--verify', '--quiet', '-q', '--heads', '--hash'], operands: true },
  'for-each-ref': { flags: ['--format=%(refname)%00%(objectname)', '--format=%(objectname)'], operands: true },
  log: { flags: ['-1', '--format=%H', '--format=%cI', '--no-color'], operands: true },
};

/**
 * Config and environment that keep a read from writing (no optional index refresh, no untracked
 * cache). That it runs nothing the repository's config names is the shared runner's guard.
 */
const READ_CONFIG = ['core.untrackedCache=false'];
const FIXED_PREFIX = ['--no-pager'];
const READ_ENV = { GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };

/** Explains why `args` is not an allowed read, or returns undefined when it is. */
export function refusalOf(args: readonly string[]): string | undefined {
  const [sub, ...rest] = args;
  if (sub === undefined) return 'no git subcommand given';
  const rule = Object.hasOwn(ALLOWED, sub) ? ALLOWED[sub] : undefined;
  if (!rule) return `git ${sub} is not a read-only subcommand on the allow-list`;
  if (rule.exact) {
    const same = rest.length === rule.exact.length && rest.every((a, i) => a === rule.exact![i]);
    return same ? undefined : `git ${sub} is allowed only as "git ${sub} ${rule.exact.join(' ')}"`;
  }
  let afterSeparator = false;
  for (const arg of rest) {
    if (arg.includes('\0')) return 'an argument contains a NUL byte';
    if (afterSeparator) continue;
    if (arg === '--' && rule.flags.includes('--')) {
      afterSeparator = true;
      continue;
    }
    if (arg.startsWith('-')) {
      if (!rule.flags.includes(arg)) return `git ${sub} ${arg} is not an allowed read-only flag`;
    } else if (!rule.operands) {
      return `git ${sub} takes no operands here`;
    }
  }
  return undefined;
}

/**
 * Makes an executor over the shared (guarded) git runner with `env` (default process.env) plus the
 * read-only settings; packet arguments never carry `-c` (the allow-list refuses it).
 */
export function createExecGit(env: NodeJS.ProcessEnv = process.env): GitExec {
  const run = createGitRunner({ env: { ...env, ...READ_ENV }, config: READ_CONFIG });
  return async (args, cwd) => {
    const result = await run(args, { cwd });
    return { exitCode: result.code, stdout: result.stdout, stderr: result.stderr };
  };
}

/** The default executor (process environment). */
export const execGit: GitExec = createExecGit();

export interface GitReader {
  /** Runs an allow-listed read in the reader's repository; a refused or failed read is a value. */
  read(args: readonly string[]): Promise<GitReadResult>;
  readonly cwd: string;
}

/** Makes a reader for `cwd`: the directory must be an absolute path to an existing directory. */
export async function openGitReader(
  cwd: string,
  exec: GitExec = execGit,
): Promise<{ ok: true; reader: GitReader } | { ok: false; code: 'git_read_failed'; message: string }> {
  if (!isAbsolute(cwd)) return { ok: false, code: 'git_read_failed', message: `root must be an absolute path, got "${cwd}"` };
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) return { ok: false, code: 'git_read_failed', message: `root ${cwd} is not a directory` };
  return { ok: true, reader: gitReader(cwd, exec) };
}

/** A reader bound to `cwd` without checking it (callers that already validated the path). */
export function gitReader(cwd: string, exec: GitExec = execGit): GitReader {
  return {
    cwd,
    async read(args) {
      const refusal = refusalOf(args);
      if (refusal) return { ok: false, code: 'git_read_refused', message: refusal };
      const result = await exec([...FIXED_PREFIX, ...args], cwd);
      if (result.exitCode !== 0) {
        const detail = result.stderr.trim().split('\n')[0] ?? '';
        return {
          ok: false,
          code: 'git_read_failed',
          message: `git ${args[0]} failed${detail ? `: ${detail}` : ''}`,
          exitCode: result.exitCode,
        };
      }
      return { ok: true, stdout: result.stdout };
    },
  };
}
