/**
 * How Codex's thread items read in Baton: the transcript text of a finished item, and the command
 * and change a permission request shows. Codex reports a command as the argv it runs, joined and
 * quoted (`/bin/bash -lc "npm test"`); the request shows the script bash runs (`npm test`) when
 * the line is exactly that, so a rule "Allow for this session" remembers reads as the user typed it.
 */
import { basename } from 'node:path';
import { PERMISSION_DIFF_MAX } from '../../../shared/permission-request.ts';
import { textDiff } from '../permissions/file-change-diff.ts';
import type { FileUpdateChange, ThreadItem } from './app-server-protocol.ts';

/** The most of a command's output a transcript entry keeps (its end). */
const OUTPUT_TAIL = 2000;

/**
 * The words of `line` as a POSIX shell splits them (single and double quotes, backslashes), or null
 * when the line holds anything a shell would interpret (operators, expansions, globs).
 */
export function shellWords(line: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= '';
      for (i++; line[i] !== '"'; i++) {
        if (i >= line.length || line[i] === '$' || line[i] === '`') return null;
        if (line[i] === '\\' && '\\"$`'.includes(line[i + 1] ?? '')) i++;
        word += line[i];
      }
    } else if (c === '\\') {
      if (i + 1 >= line.length) return null;
      word = (word ?? '') + line[++i];
    } else if (/[;&|<>()$`*?[\]{}~#!\n\r]/.test(c)) {
      return null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** The command a request shows: the script of `<sh|bash|zsh> -c|-lc <script>`, else Codex's line as it is. */
export function commandLine(command: string): string {
  const words = shellWords(command);
  if (words === null || words.length !== 3) return command;
  const [shell, flag, script] = words as [string, string, string];
  return ['sh', 'bash', 'zsh'].includes(basename(shell)) && (flag === '-c' || flag === '-lc') ? script : command;
}

/** "add /ws/a.txt", "update /ws/b.ts", "update /ws/old.ts → /ws/new.ts". */
function changeName(change: FileUpdateChange): string {
  const moved = change.kind.type === 'update' && change.kind.move_path ? ` → ${change.kind.move_path}` : '';
  return `${change.kind.type} ${change.path}${moved}`;
}

/** Every path a change writes (a move writes two). */
export function changedPaths(changes: readonly FileUpdateChange[]): string[] {
  return changes.flatMap((c) => (c.kind.type === 'update' && c.kind.move_path ? [c.path, c.kind.move_path] : [c.path]));
}

/**
 * One change as a unified diff with its paths in the headers: a new file's content or a deleted
 * file's as added or removed lines, an update as Codex's own hunks (it gives no headers).
 */
function changeDiff(change: FileUpdateChange): string {
  const { path, kind, diff } = change;
  if (kind.type === 'add') return textDiff(path, '', diff);
  if (kind.type === 'delete') return textDiff(path, diff, '');
  return `--- ${path}\n+++ ${kind.move_path ?? path}\n${diff}${diff.endsWith('\n') ? '' : '\n'}`;
}

/** The diff a request shows: every change's, one after the other; cut at PERMISSION_DIFF_MAX, saying so. */
export function changesDiff(changes: readonly FileUpdateChange[]): string {
  const whole = changes.map(changeDiff).join('');
  if (whole.length <= PERMISSION_DIFF_MAX) return whole;
  const note = `\n… (the diff is ${whole.length} characters; the first ${PERMISSION_DIFF_MAX - 100} are shown)`;
  return whole.slice(0, PERMISSION_DIFF_MAX - 100) + note;
}

/** The end of a command's output, for its transcript entry. */
function outputTail(output: string | null): string {
  const text = (output ?? '').trimEnd();
  if (text === '') return '';
  return `\n${text.length > OUTPUT_TAIL ? `…${text.slice(-OUTPUT_TAIL)}` : text}`;
}

/** The transcript entry of a finished item, or null for items that are activity only (reasoning, plans). */
export function itemEntry(item: ThreadItem): { role: 'assistant' | 'tool'; text: string } | null {
  switch (item.type) {
    case 'agentMessage':
      return { role: 'assistant', text: item.text };
    case 'commandExecution': {
      const how = item.status === 'declined' ? ' (declined)' : item.exitCode !== null ? ` (exit ${item.exitCode})` : ` (${item.status})`;
      return { role: 'tool', text: `$ ${commandLine(item.command)}${how}${outputTail(item.aggregatedOutput)}` };
    }
    case 'fileChange': {
      const what =
        item.status === 'completed' ? 'Changed files' : item.status === 'declined' ? 'Declined file changes' : 'File changes failed';
      return { role: 'tool', text: `${what}: ${item.changes.map(changeName).join(', ')}` };
    }
    case 'mcpToolCall':
      return { role: 'tool', text: `${item.server}.${item.tool}${item.error ? ` failed: ${item.error.message}` : ''}` };
    case 'webSearch':
      return { role: 'tool', text: `Searched the web: ${item.query}` };
    default:
      return null;
  }
}
