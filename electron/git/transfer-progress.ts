/**
 * Git's own progress for a fetch or a clone, read from its stderr as it comes (`--progress`):
 * "Receiving objects:  45% (450/1000), 1.20 MiB | 2.00 MiB/s" gives the bytes received so far and
 * the percent of objects. Git rewrites a line with `\r` while it counts, so lines end at `\r` or `\n`.
 */
import { basename } from 'node:path';
import { gitFailureText, type GitResult, type GitRunner } from './git-runner.ts';

/** How far one fetch or clone got, for the move's progress (unknown figures are null). */
export interface GitTransferReport {
  step: 'fetch' | 'clone';
  /** The repository's folder name. */
  label: string;
  doneBytes: number | null;
  totalBytes: number | null;
  /** 0–100 when known. */
  percent: number | null;
}

export type GitTransferListener = (report: GitTransferReport) => void;

const UNIT_BYTES: Record<string, number> = { bytes: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
const RECEIVING = /Receiving objects:\s+(\d{1,3})%\s+\(\d+\/\d+\)(?:,\s+([\d.]+)\s+(bytes|KiB|MiB|GiB))?/;

/** The bytes and percent of one "Receiving objects" line; null for any other line. */
export function parseReceivingLine(line: string): { doneBytes: number | null; percent: number } | null {
  const match = RECEIVING.exec(line);
  if (!match) return null;
  const doneBytes = match[2] === undefined ? null : Math.round(Number(match[2]) * UNIT_BYTES[match[3]!]!);
  return { doneBytes, percent: Math.min(100, Number(match[1])) };
}

/** A stderr consumer that calls `onLine` for every complete progress line (`\r` or `\n` ended). */
export function progressLines(onLine: (line: string) => void): (text: string) => void {
  let pending = '';
  return (text) => {
    const parts = (pending + text).split(/[\r\n]/);
    pending = parts.pop() ?? '';
    for (const part of parts) if (part.trim() !== '') onLine(part);
  };
}

/**
 * Runs a fetch or clone (`args` must carry `--progress`) and reports to `listen`: once when it
 * starts, on every receiving update, and once when it succeeded (100%, the bytes received).
 */
export async function runTransfer(
  run: GitRunner,
  args: readonly string[],
  where: { cwd: string; step: GitTransferReport['step']; repoPath: string },
  listen: GitTransferListener | undefined,
): Promise<GitResult> {
  if (!listen) return run(args, { cwd: where.cwd });
  const label = basename(where.repoPath);
  let last: number | null = null;
  const report = (doneBytes: number | null, percent: number | null, totalBytes: number | null = null) =>
    listen({ step: where.step, label, doneBytes, totalBytes, percent });
  report(null, null);
  const onStderr = progressLines((line) => {
    const seen = parseReceivingLine(line);
    if (!seen) return;
    last = seen.doneBytes ?? last;
    // The end is said once, when git has finished (resolving deltas comes after the last byte).
    if (seen.percent < 100) report(last, seen.percent);
  });
  const result = await run(args, { cwd: where.cwd, onStderr });
  if (result.code === 0) report(last, 100, last);
  return result;
}

/** The first line of a failed transfer's stderr that is not progress, redacted. */
export function transferFailureText(result: GitResult): string {
  const lines = result.stderr.split(/[\r\n]/).filter((l) => l.trim() !== '' && !/^(remote: )?[A-Za-z ]+:\s+\d{1,3}% /.test(l));
  return gitFailureText({ ...result, stderr: lines.join('\n') });
}
