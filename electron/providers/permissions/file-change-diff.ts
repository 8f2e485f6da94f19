/**
 * The diff a permission request shows for a file change: the file as it is now against what the
 * change would make of it, as a unified diff (jsdiff) with the path in its headers. The file is read
 * only when it is a regular file inside the session's workspace (its path resolved, links followed,
 * a relative one from the workspace), opened without blocking (a named pipe or a device is never
 * waited on, nor read) and read up to DIFF_FILE_MAX bytes: whatever path an agent names, the thread
 * pool is never held and memory never grows with the file. Otherwise the change is shown as its bare
 * fragments under "(file not shown: …)". A change too long to diff is shown as its fragments too; the
 * result is cut to PERMISSION_DIFF_MAX either way.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { PERMISSION_DIFF_MAX } from '../../../shared/permission-request.ts';

/** Files larger than this are not read for a diff (bytes). */
const DIFF_FILE_MAX = 1024 * 1024;
/** jsdiff gives up past this many changed lines (it returns nothing), and the fragments are shown. */
const DIFF_EDIT_MAX = 2000;

/** A file's text as a diff starts from, or why it is not shown. */
export type CurrentText = { text: string } | { notShown: string };

/** Whether `path` is `root` or inside it. */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The text of `path` (relative: from `workspace`) as it is now: '' when it does not exist; else read
 * only when it resolves to a regular file inside the workspace, of at most DIFF_FILE_MAX bytes.
 */
export async function currentText(path: string, workspace: string | null): Promise<CurrentText> {
  if (workspace === null) return { notShown: 'the session has no workspace to read it in' };
  const absolute = resolve(workspace, path);
  let resolved: string;
  try {
    resolved = await realpath(absolute);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { text: '' } : { notShown: 'it cannot be read' };
  }
  const root = await realpath(workspace).catch(() => resolve(workspace));
  if (!within(root, resolved)) return { notShown: 'it is outside the workspace' };
  // Never waits: a named pipe opens at once with O_NONBLOCK, and is then refused for what it is.
  const file = await open(resolved, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch(() => null);
  if (file === null) return { notShown: 'it cannot be read' };
  try {
    const stat = await file.stat();
    if (!stat.isFile()) return { notShown: 'it is not a regular file' };
    if (stat.size > DIFF_FILE_MAX) return { notShown: `it is larger than ${DIFF_FILE_MAX / (1024 * 1024)} MiB` };
    const bytes = Buffer.alloc(DIFF_FILE_MAX + 1);
    let read = 0;
    for (let got = -1; got !== 0 && read < bytes.length; read += got)
      got = (await file.read(bytes, read, bytes.length - read, read)).bytesRead;
    if (read > DIFF_FILE_MAX) return { notShown: `it is larger than ${DIFF_FILE_MAX / (1024 * 1024)} MiB` };
    return { text: bytes.toString('utf8', 0, read) };
  } finally {
    await file.close();
  }
}

/** Cuts a diff to the bound, saying so on its last line. */
function bounded(diff: string): string {
  if (diff.length <= PERMISSION_DIFF_MAX) return diff;
  const note = '\n… (the rest of the diff is not shown)\n';
  return diff.slice(0, PERMISSION_DIFF_MAX - note.length) + note;
}

/** The unified diff of `path` from `before` to `after`; null when jsdiff gives up. */
function unified(path: string, before: string, after: string): string | null {
  const patch = createTwoFilesPatch(path, path, before, after, undefined, undefined, { context: 3, maxEditLength: DIFF_EDIT_MAX });
  return patch === undefined ? null : bounded(patch);
}

/** The fragments of a change as `-` and `+` lines, when no real diff can be made (`note`: why, on a line of its own). */
function fragments(path: string, removed: string, added: string, note?: string): string {
  const lines = (text: string, sign: string) => (text === '' ? [] : text.split('\n').map((line) => `${sign}${line}`));
  const said = note === undefined ? [] : [`(file not shown: ${note})`];
  return bounded([`--- ${path}`, `+++ ${path}`, ...said, ...lines(removed, '-'), ...lines(added, '+')].join('\n') + '\n');
}

/** The diff of `path` from `before` to `after` (unified; its bare fragments when jsdiff gives up), bounded. */
export function textDiff(path: string, before: string, after: string): string {
  return unified(path, before, after) ?? fragments(path, before, after);
}

/** The diff of writing `content` to `path` (a new file, or the whole of an existing one) in `workspace`. */
export async function writeDiff(path: string, content: string, workspace: string | null): Promise<string> {
  const now = await currentText(path, workspace);
  return 'notShown' in now ? fragments(path, '', content, now.notShown) : textDiff(path, now.text, content);
}

/** The diff of replacing `oldText` by `newText` in `path` (every occurrence when `all`, else the first) in `workspace`. */
export async function replaceDiff(
  path: string,
  edits: { oldText: string; newText: string; all?: boolean }[],
  workspace: string | null,
): Promise<string> {
  const now = await currentText(path, workspace);
  const note = 'notShown' in now ? now.notShown : undefined;
  const before = 'text' in now ? now.text : null;
  if (before !== null && edits.every((edit) => before.includes(edit.oldText) || edit.oldText === '')) {
    let after = before;
    for (const edit of edits)
      after = edit.all === true ? after.split(edit.oldText).join(edit.newText) : after.replace(edit.oldText, () => edit.newText);
    const diff = unified(path, before, after);
    if (diff !== null) return diff;
  }
  return fragments(path, edits.map((edit) => edit.oldText).join('\n'), edits.map((edit) => edit.newText).join('\n'), note);
}
