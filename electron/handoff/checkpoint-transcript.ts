/**
 * A checkpoint's transcript without holding it: how many entries, the newest few (what a summary
 * continuation quotes), and every entry in order, read afresh from where they are kept whenever
 * asked — the source's transcript log, a scratch file of its merge with the running provider's
 * entries, or the entry lines the target staged as the body arrived. Older formats' short tails and
 * tests hold theirs in memory behind the same shape.
 */
import { open, rm } from 'node:fs/promises';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { LineWriter } from '../io/line-writer.ts';
import type { LocalState } from '../local-state/local-state.ts';
import { readEntries } from '../local-state/log-lines.ts';

/** How many of the newest entries a checkpoint's transcript keeps at hand. */
export const NEWEST_ENTRIES = 200;

export interface CheckpointTranscript {
  /** How many entries `entries()` yields. */
  readonly count: number;
  /** The newest entries (up to NEWEST_ENTRIES), oldest first. */
  readonly newest: readonly TranscriptEntry[];
  /** Every entry, in order (iterate to the end or break out: a file stays open until then). */
  entries(): AsyncIterable<TranscriptEntry>;
  /** Removes the file the entries are kept in, if any (once nothing reads them any more). */
  discard(): Promise<void>;
}

/** A transcript held in memory (older formats' tail, a provider's own entries, tests). */
export function transcriptOf(entries: readonly TranscriptEntry[]): CheckpointTranscript {
  return {
    count: entries.length,
    newest: entries.slice(-NEWEST_ENTRIES),
    async *entries() {
      yield* entries;
    },
    discard: async () => undefined,
  };
}

/** The session's transcript as its log holds it now, read from the log as it is asked for. */
export function logTranscript(
  state: Pick<LocalState, 'transcriptCount' | 'newestTranscript' | 'transcriptEntries'>,
  sessionId: string,
): CheckpointTranscript {
  return {
    count: state.transcriptCount(sessionId),
    newest: state.newestTranscript(sessionId, NEWEST_ENTRIES),
    entries: () => state.transcriptEntries(sessionId),
    discard: async () => undefined,
  };
}

/** The `count` entry lines of the file `path` (`newest`: its last entries). */
export function transcriptFile(path: string, count: number, newest: readonly TranscriptEntry[]): CheckpointTranscript {
  return {
    count,
    newest,
    async *entries() {
      if (count === 0) return;
      const file = await open(path, 'r');
      try {
        yield* readEntries(file, 0, (await file.stat()).size);
      } finally {
        await file.close();
      }
    },
    discard: () => rm(path, { force: true }),
  };
}

/** Keeps the newest NEWEST_ENTRIES of a stream of entries (trimmed now and then, not per entry). */
export class NewestEntries {
  private kept: TranscriptEntry[] = [];

  push(entry: TranscriptEntry): void {
    this.kept.push(entry);
    if (this.kept.length > 2 * NEWEST_ENTRIES) this.kept.splice(0, this.kept.length - NEWEST_ENTRIES);
  }

  /** The newest entries pushed, oldest first. */
  list(): TranscriptEntry[] {
    return this.kept.slice(-NEWEST_ENTRIES);
  }
}

/**
 * Takes `entries` as a transcript: held in memory while they are no more than NEWEST_ENTRIES, else
 * written to the file `path` (made only then), one line each, and read back from there.
 */
export async function writeTranscriptFile(path: string, entries: AsyncIterable<TranscriptEntry>): Promise<CheckpointTranscript> {
  const held: TranscriptEntry[] = [];
  const newest = new NewestEntries();
  let out: LineWriter | null = null;
  let count = 0;
  try {
    for await (const entry of entries) {
      count += 1;
      newest.push(entry);
      if (out) {
        await out.write(JSON.stringify(entry));
        continue;
      }
      held.push(entry);
      if (held.length <= NEWEST_ENTRIES) continue;
      out = await LineWriter.create(path);
      for (const kept of held.splice(0)) await out.write(JSON.stringify(kept));
    }
  } finally {
    await out?.close();
  }
  return out ? transcriptFile(path, count, newest.list()) : transcriptOf(held);
}
