/** Refused answers reach the transcript as one note per interval: the first at once, the rest summed up when it ends. */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../dev-env/process-harness.ts';
import { RefusalNotes } from './refusal-notes.ts';

describe('refusal notes', () => {
  it('tells the first refusal at once, sums up the rest of its interval in one note, and logs each', async () => {
    const notes: string[] = [];
    const log: string[] = [];
    const refusals = new RefusalNotes({ note: (id, text) => notes.push(`${id}: ${text}`), log: (line) => log.push(line), intervalMs: 50 });
    refusals.refused('s1', 'desktop', 'the session has no such permission request');
    for (let i = 0; i < 30; i += 1) refusals.refused('s1', i % 2 === 0 ? 'desktop' : 'phone', 'it is a replay of an answer already seen');
    refusals.refused('s2', 'phone', 'it answers another session');
    expect(notes).toEqual([
      's1: An answer from desktop was refused: the session has no such permission request.',
      's2: An answer from phone was refused: it answers another session.',
    ]);
    await waitFor('the summary', async () => (notes.length === 3 ? true : undefined));
    expect(notes[2]).toBe('s1: 30 more answers from desktop, phone were refused: it is a replay of an answer already seen.');
    expect(log).toHaveLength(32);
    // An interval with nothing held ends quietly, and the next refusal is told at once again.
    await new Promise((resolve) => setTimeout(resolve, 120));
    refusals.refused('s1', 'desktop', 'it is not signed by an enrolled device of the account');
    expect(notes.at(-1)).toBe('s1: An answer from desktop was refused: it is not signed by an enrolled device of the account.');
    refusals.stop();
  });
});
