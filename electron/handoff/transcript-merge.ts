/**
 * Merging two devices' transcripts of one session by entry identity, so a Move loses nothing:
 * every entry either device had is in the result once, each device's entries in their own order.
 * The checkpoint's order (the device that drove the session last) leads; an entry only this
 * device had stays right after the entry it followed here. Streamed: neither side is held, only
 * the ids of the checkpoint's entries (and of those only this device had) while it runs, packed
 * (local-state/id-table.ts).
 */
import type { TranscriptEntry } from '../../shared/agents.ts';
import type { CheckpointTranscript } from './checkpoint-transcript.ts';
import { IdTable } from '../local-state/id-table.ts';

/**
 * Every entry of `mine` and of `theirs`, each once (by id), in order: `theirs` in its order, and
 * each entry only `mine` holds placed after the entry it follows in `mine`. Reads `theirs` twice
 * (its ids first) and `mine` once; linear in the total length.
 */
export async function* mergeEntries(
  mine: AsyncIterable<TranscriptEntry>,
  theirs: Pick<CheckpointTranscript, 'entries' | 'count'>,
): AsyncGenerator<TranscriptEntry> {
  // Their ids, each flagged once placed; the ids only mine holds, once placed.
  const theirIds = new IdTable(theirs.count);
  for await (const entry of theirs.entries()) theirIds.add(entry.id);
  const placedMine = new IdTable();
  const rest = theirs.entries()[Symbol.asyncIterator]();
  const isPlaced = (id: string) => (theirIds.has(id) ? theirIds.flagged(id) : placedMine.has(id));
  const markPlaced = (id: string) => (theirIds.has(id) ? theirIds.flag(id) : placedMine.add(id));
  /** Their entries up to and including the entry `id` (to the end when undefined), each not placed yet. */
  async function* theirsThrough(id: string | undefined): AsyncGenerator<TranscriptEntry> {
    for (let next = await rest.next(); !next.done; next = await rest.next()) {
      const entry = next.value;
      if (!isPlaced(entry.id)) {
        markPlaced(entry.id);
        yield entry;
      }
      if (entry.id === id) return;
    }
  }
  try {
    for await (const entry of mine) {
      if (isPlaced(entry.id)) continue;
      if (theirIds.has(entry.id)) yield* theirsThrough(entry.id);
      else {
        markPlaced(entry.id);
        yield entry;
      }
    }
    yield* theirsThrough(undefined);
  } finally {
    await rest.return?.();
  }
}
