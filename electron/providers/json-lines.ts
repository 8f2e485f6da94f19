/** JSON Lines files, as Claude Code transcripts and Codex rollouts are kept, and moving paths between workspaces. */
import type { Result } from '../../shared/errors.ts';

export type JsonLine = Record<string, unknown>;

/** Parses every non-blank line as a JSON object; the first bad line fails the whole file. */
export function parseJsonLines(text: string): Result<JsonLine[], 'malformed'> {
  const lines: JsonLine[] = [];
  const raw = text.split('\n');
  for (let i = 0; i < raw.length; i += 1) {
    const line = raw[i] ?? '';
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { ok: false, code: 'malformed', message: `line ${i + 1} is not JSON` };
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      return { ok: false, code: 'malformed', message: `line ${i + 1} is not a JSON object` };
    }
    lines.push(value as JsonLine);
  }
  return { ok: true, value: lines };
}

/** Each line that parses as a JSON object, skipping the rest (for reading history, not for checks). */
export function readableLines(text: string): JsonLine[] {
  const lines: JsonLine[] = [];
  for (const raw of text.split('\n')) {
    try {
      const value: unknown = JSON.parse(raw);
      if (value && typeof value === 'object' && !Array.isArray(value)) lines.push(value as JsonLine);
    } catch {
      // blank or damaged line
    }
  }
  return lines;
}

/** `path` moved from under `from` to under `to` (paths outside `from` become `to`). */
export function movePath(path: string, from: string, to: string): string {
  if (path === from) return to;
  if (path.startsWith(`${from}/`)) return `${to}${path.slice(from.length)}`;
  return to;
}
