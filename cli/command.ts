/** The shape of a `baton` subcommand and the argument parsing every subcommand shares. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface Command {
  /** One line for `baton --help`. */
  summary: string;
  /** The full `--help` text of the subcommand. */
  usage: string;
  /** Runs the command; resolves to the process exit code (long-running commands resolve on SIGTERM). */
  run(argv: string[]): Promise<number>;
}

/** A usage error: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedFlags {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses `argv` strictly against `options`; unknown flags and stray arguments are usage errors. */
export function parseFlags(argv: string[], options: Options, allowPositionals = false): ParsedFlags {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals }) as ParsedFlags;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Reads a required string flag. */
export function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** Parses a TCP port flag (0 picks a free port). */
export function portFlag(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535, got ${String(value)}`);
  return port;
}

/** Resolves when the process is asked to stop (SIGTERM or SIGINT). */
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}
