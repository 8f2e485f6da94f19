/**
 * Reads of small local files done on the calling thread: a git ref or HEAD (41 bytes), a repository's
 * config (a few KB), whether a marker file exists. Through the thread pool each read costs about
 * 30 µs of CPU and two thread wake-ups (`fs/promises.readFile` is four round trips: open, fstat,
 * read, close); here it costs 1–5 µs. A git-dir read is a chain of such reads, and on a busy machine
 * a move waits on the wake-ups, not on the disk. Never for anything that grows with the session
 * (transcripts, checkpoints, provider files): those are streamed.
 */
import { readFileSync, statSync } from 'node:fs';

/** What is at `path`: a directory, some other file, or nothing (also when it cannot be read). */
export function pathKind(path: string): 'directory' | 'file' | null {
  try {
    const found = statSync(path, { throwIfNoEntry: false });
    return found === undefined ? null : found.isDirectory() ? 'directory' : 'file';
  } catch {
    return null;
  }
}

/** The text of the small file at `path`, trimmed; null when it is absent or cannot be read. */
export function readSmallText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}
