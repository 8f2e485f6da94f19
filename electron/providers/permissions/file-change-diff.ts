/**
 * The diff a permission request shows for a file change: the file as it is now against what the
 * change would make of it, as a unified diff (jsdiff) with the path in its headers. A file too large
 * to diff quickly, or a change too long, is shown as its bare fragments instead; the result is cut
 * to PERMISSION_DIFF_MAX either way.
 */
import { readFile } from 'node:fs/promises';
import { createTwoFilesPatch } from 'diff';
import { PERMISSION_DIFF_MAX } from '../../../shared/permission-request.ts';

/** Files larger than this are not read for a diff (bytes). */
const DIFF_FILE_MAX = 1024 * 1024;
/** jsdiff gives up past this many changed lines (it returns nothing), and the fragments are shown. */
const DIFF_EDIT_MAX = 2000;

/** The file's current text; '' when it does not exist; null when it cannot be read or is too large. */
export async function currentText(path: string): Promise<string | null> {
  try {
    const bytes = await readFile(path);
    return bytes.length > DIFF_FILE_MAX ? null : bytes.toString('utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? '' : null;
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

/** The fragments of a change as `-` and `+` lines, when no real diff can be made. */
function fragments(path: string, removed: string, added: string): string {
  const lines = (text: string, sign: string) => (text === '' ? [] : text.split('\n').map((line) => `${sign}${line}`));
  return bounded([`--- ${path}`, `+++ ${path}`, ...lines(removed, '-'), ...lines(added, '+')].join('\n') + '\n');
}

/** The diff of `path` from `before` to `after` (unified; its bare fragments when jsdiff gives up), bounded. */
export function textDiff(path: string, before: string, after: string): string {
  return unified(path, before, after) ?? fragments(path, before, after);
}

/** The diff of writing `content` to `path` (a new file, or the whole of an existing one). */
export async function writeDiff(path: string, content: string): Promise<string> {
  const before = await currentText(path);
  return before === null ? fragments(path, '', content) : textDiff(path, before, content);
}

/** The diff of replacing `oldText` by `newText` in `path` (every occurrence when `all`, else the first). */
export async function replaceDiff(path: string, edits: { oldText: string; newText: string; all?: boolean }[]): Promise<string> {
  const before = await currentText(path);
  if (before !== null && edits.every((edit) => before.includes(edit.oldText) || edit.oldText === '')) {
    let after = before;
    for (const edit of edits)
      after = edit.all === true ? after.split(edit.oldText).join(edit.newText) : after.replace(edit.oldText, () => edit.newText);
    const diff = unified(path, before, after);
    if (diff !== null) return diff;
  }
  return fragments(path, edits.map((edit) => edit.oldText).join('\n'), edits.map((edit) => edit.newText).join('\n'));
}
