/**
 * The file work ACP agents' session stores share: a session folder's files as export files, the
 * checks on a carried file's name, and writing a session into place whole — staged beside its
 * place and renamed in, so a failed write (disk full, a name too long) changes nothing, and a folder
 * it replaces is removed only once the new one is there.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { ResumeFile } from '../../../shared/provider.ts';
import { forEachLine } from '../../io/line-reader.ts';
import { LineWriter } from '../../io/line-writer.ts';

/** How many files one exported session folder may hold. */
export const SESSION_FILES_MAX = 2000;

/** The regular files under `dir` (lock files left out), named by their path inside it with `/`. */
export async function folderFiles(dir: string): Promise<ResumeFile[] | null> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => null);
  if (entries === null) return null;
  const files: ResumeFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || entry.name.endsWith('.lock')) continue;
    const path = join(entry.parentPath, entry.name);
    const size = await stat(path).then(
      (s) => s.size,
      () => null,
    );
    if (size !== null) files.push({ name: relative(dir, path).split(sep).join('/'), path, size });
  }
  return files.sort((a, b) => a.name.localeCompare(b.name));
}

/** True when `name` is a plain relative path (no `..`, no empty or dot segment, no lock file). */
export function plainName(name: string): boolean {
  if (isAbsolute(name) || name.includes('\\') || name.endsWith('.lock')) return false;
  return name.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/** True when `path` exists. */
export function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Writes a session into `target` (a folder, or a file when `asFile`): `write(staged)` fills the
 * staged copy beside it; then an existing `target` is moved aside, the staged copy renamed into
 * place, and the old one removed. A failed write removes the staged copy and rethrows.
 */
export async function placeWhole(target: string, write: (staged: string) => Promise<void>): Promise<void> {
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const tag = randomBytes(4).toString('hex');
  const staged = join(parent, `.baton-import-${tag}`);
  const aside = join(parent, `.baton-replaced-${tag}`);
  try {
    await write(staged);
  } catch (error) {
    await rm(staged, { recursive: true, force: true });
    throw error;
  }
  const had = await exists(target);
  if (had) await rename(target, aside);
  try {
    await rename(staged, target);
  } catch (error) {
    if (had) await rename(aside, target).catch(() => undefined);
    await rm(staged, { recursive: true, force: true });
    throw error;
  }
  if (had) await rm(aside, { recursive: true, force: true });
}

/** A line the import refuses (not a JSON object, another session's): the message says which and why. */
export class LineRefused extends Error {}

/**
 * Writes `from` to `to` line by line as `line` gives each (from its JSON object and its text as
 * read, which an unchanged line is written as, byte for byte; blank lines dropped), streaming,
 * never whole; `line` throws LineRefused to refuse the file. Rejects with LineTooLong at a line
 * over the reader's limit.
 */
export async function rewriteLines(
  from: string,
  to: string,
  line: (entry: Record<string, unknown>, text: string, number: number) => string,
): Promise<void> {
  const writer = await LineWriter.create(to);
  try {
    await forEachLine(from, async (text, number) => {
      if (text.trim() === '') return;
      let entry: unknown;
      try {
        entry = JSON.parse(text);
      } catch {
        throw new LineRefused(`line ${number} is not JSON`);
      }
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new LineRefused(`line ${number} is not a JSON object`);
      await writer.write(line(entry as Record<string, unknown>, text, number));
    });
  } finally {
    await writer.close();
  }
}
