/**
 * Merging two devices' transcripts of one session by entry identity, so a Move loses nothing:
 * every entry either device had is in the result once, each device's entries in their own order.
 * The checkpoint's order (the device that drove the session last) leads; an entry only this
 * device had stays right after the entry it followed here.
 */
import type { TranscriptEntry } from '../../shared/agents.ts';

/**
 * Every entry of `mine` and of `theirs`, each once (by id), in order: `theirs` in its order, and
 * each entry only `mine` holds placed after the entry it follows in `mine`. Linear in the total length.
 */
export function mergeTranscripts(mine: readonly TranscriptEntry[], theirs: readonly TranscriptEntry[]): TranscriptEntry[] {
  const inTheirs = new Set(theirs.map((entry) => entry.id));
  const placed = new Set<string>();
  const merged: TranscriptEntry[] = [];
  let next = 0;
  const place = (entry: TranscriptEntry) => {
    if (placed.has(entry.id)) return;
    placed.add(entry.id);
    merged.push(entry);
  };
  /** Places `theirs` up to and including the entry `id` (to the end when undefined). */
  const placeTheirsThrough = (id: string | undefined) => {
    while (next < theirs.length) {
      const entry = theirs[next++]!;
      place(entry);
      if (entry.id === id) return;
    }
  };
  for (const entry of mine) {
    if (placed.has(entry.id)) continue;
    if (inTheirs.has(entry.id)) placeTheirsThrough(entry.id);
    else place(entry);
  }
  placeTheirsThrough(undefined);
  return merged;
}
