/**
 * Reading the head of a CLI's session files (Claude Code transcripts, Codex rollouts) without
 * loading them whole: they grow to megabytes, while listing a workspace's sessions needs only the
 * first lines (the cwd, the first user message). Shared by the listers of both CLIs.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { JsonLine } from './json-lines.ts';

/** How many lines of a file a lister reads at most before giving up on finding what it looks for. */
export const SCAN_MAX_LINES = 2000;

/**
 * Calls `visit` with each JSON-object line of the file at `path`, in order, until it returns true,
 * the file ends or `maxLines` lines were read; unreadable lines are skipped. False when the file
 * cannot be read.
 */
export async function scanLines(path: string, visit: (line: JsonLine) => boolean, maxLines = SCAN_MAX_LINES): Promise<boolean> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let read = 0;
  try {
    for await (const raw of lines) {
      read += 1;
      if (read > maxLines) break;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        continue;
      }
      if (value && typeof value === 'object' && !Array.isArray(value) && visit(value as JsonLine)) break;
    }
    return true;
  } catch {
    return false;
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** A list title from a user message: its first non-blank line, at most 80 characters. */
export function titleOf(text: string): string {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (line === undefined) return '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** The files at `paths` with their modification times, most recently written first (unreadable ones left out). */
export async function newestFiles(paths: readonly string[]): Promise<{ path: string; mtimeMs: number }[]> {
  const stamped = await Promise.all(
    paths.map((path) =>
      stat(path).then(
        (s) => ({ path, mtimeMs: s.mtimeMs }),
        () => null,
      ),
    ),
  );
  return stamped.filter((file) => file !== null).sort((a, b) => b.mtimeMs - a.mtimeMs);
}
