import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { mergeTranscripts } from './transcript-merge.ts';

const entries = (...ids: string[]): TranscriptEntry[] => ids.map((id, at) => ({ id, at, role: 'assistant', agentId: 'main', text: id }));
const ids = (list: TranscriptEntry[]) => list.map((e) => e.id);

describe('merging two transcripts by entry identity', () => {
  it("keeps the checkpoint's order and each entry once", () => {
    expect(ids(mergeTranscripts(entries('a', 'b'), entries('a', 'b', 'c', 'd')))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(mergeTranscripts([], entries('a', 'b')))).toEqual(['a', 'b']);
    expect(ids(mergeTranscripts(entries('a', 'b'), []))).toEqual(['a', 'b']);
  });

  it('keeps an entry only this device had right after the entry it followed here', () => {
    // "note" is this device's own (a restart note); the checkpoint never saw it.
    const merged = mergeTranscripts(entries('a', 'b', 'note', 'c'), entries('a', 'b', 'c', 'd', 'e'));
    expect(ids(merged)).toEqual(['a', 'b', 'note', 'c', 'd', 'e']);
    expect(ids(mergeTranscripts(entries('mine-first', 'a'), entries('a', 'b')))).toEqual(['mine-first', 'a', 'b']);
    expect(ids(mergeTranscripts(entries('a', 'mine-last'), entries('a', 'b')))).toEqual(['a', 'mine-last', 'b']);
  });

  it('loses nothing of a long session that the checkpoint carries only partly known here', () => {
    const all = entries(...Array.from({ length: 1000 }, (_, i) => `e${i}`));
    const here = [...all.slice(0, 300), ...entries('restart-note'), ...all.slice(300, 310)];
    const merged = mergeTranscripts(here, all);
    expect(merged).toHaveLength(1001);
    expect(ids(merged).indexOf('restart-note')).toBe(300);
    expect(ids(merged).filter((id) => id !== 'restart-note')).toEqual(ids(all));
  });

  it('places an entry listed twice once, at its first place', () => {
    expect(ids(mergeTranscripts(entries('a', 'a', 'b'), entries('a', 'b', 'b')))).toEqual(['a', 'b']);
  });
});
