import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { transcriptOf } from './checkpoint-transcript.ts';
import { mergeEntries } from './transcript-merge.ts';

const entries = (...ids: string[]): TranscriptEntry[] => ids.map((id, at) => ({ id, at, role: 'assistant', agentId: 'main', text: id }));
const ids = (list: TranscriptEntry[]) => list.map((e) => e.id);

/** The merge of two transcripts held in memory, streamed as a Move streams them. */
async function mergeTranscripts(mine: TranscriptEntry[], theirs: TranscriptEntry[]): Promise<TranscriptEntry[]> {
  const merged: TranscriptEntry[] = [];
  for await (const entry of mergeEntries(transcriptOf(mine).entries(), transcriptOf(theirs))) merged.push(entry);
  return merged;
}

describe('merging two transcripts by entry identity', async () => {
  it("keeps the checkpoint's order and each entry once", async () => {
    expect(ids(await mergeTranscripts(entries('a', 'b'), entries('a', 'b', 'c', 'd')))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(await mergeTranscripts([], entries('a', 'b')))).toEqual(['a', 'b']);
    expect(ids(await mergeTranscripts(entries('a', 'b'), []))).toEqual(['a', 'b']);
  });

  it('keeps an entry only this device had right after the entry it followed here', async () => {
    // "note" is this device's own (a restart note); the checkpoint never saw it.
    const merged = await mergeTranscripts(entries('a', 'b', 'note', 'c'), entries('a', 'b', 'c', 'd', 'e'));
    expect(ids(merged)).toEqual(['a', 'b', 'note', 'c', 'd', 'e']);
    expect(ids(await mergeTranscripts(entries('mine-first', 'a'), entries('a', 'b')))).toEqual(['mine-first', 'a', 'b']);
    expect(ids(await mergeTranscripts(entries('a', 'mine-last'), entries('a', 'b')))).toEqual(['a', 'mine-last', 'b']);
  });

  it('loses nothing of a long session that the checkpoint carries only partly known here', async () => {
    const all = entries(...Array.from({ length: 1000 }, (_, i) => `e${i}`));
    const here = [...all.slice(0, 300), ...entries('restart-note'), ...all.slice(300, 310)];
    const merged = await mergeTranscripts(here, all);
    expect(merged).toHaveLength(1001);
    expect(ids(merged).indexOf('restart-note')).toBe(300);
    expect(ids(merged).filter((id) => id !== 'restart-note')).toEqual(ids(all));
  });

  it('places an entry listed twice once, at its first place', async () => {
    expect(ids(await mergeTranscripts(entries('a', 'a', 'b'), entries('a', 'b', 'b')))).toEqual(['a', 'b']);
  });

  it('gives what the merge of whole arrays gave, for any two transcripts', async () => {
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 300; round++) {
      const pick = () => entries(...Array.from({ length: random(12) }, () => `e${random(15)}`));
      // The same id on both sides with other text: which side's entry is kept counts too.
      const [mine, theirs] = [pick().map((e) => ({ ...e, text: `mine ${e.id}` })), pick()];
      expect(await mergeTranscripts(mine, theirs)).toEqual(wholeArrayMerge(mine, theirs));
    }
  });
});

/** The merge as it was written over whole arrays (before transcripts were streamed): the reference. */
function wholeArrayMerge(mine: readonly TranscriptEntry[], theirs: readonly TranscriptEntry[]): TranscriptEntry[] {
  const inTheirs = new Set(theirs.map((entry) => entry.id));
  const placed = new Set<string>();
  const merged: TranscriptEntry[] = [];
  let next = 0;
  const place = (entry: TranscriptEntry) => {
    if (placed.has(entry.id)) return;
    placed.add(entry.id);
    merged.push(entry);
  };
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
