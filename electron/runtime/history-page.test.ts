import { describe, expect, it } from 'vitest';
import type { Handoff } from '../../shared/api/handoffs.ts';
import { newestPage } from './history-page.ts';

/** Handoffs oldest first, as the coordinator keeps them; only their ids matter to a page. */
const handoffs = Array.from({ length: 7 }, (_, i) => ({ id: `h${i}`, createdAt: i }) as Handoff);
const ids = (page: Handoff[]) => page.map((h) => h.id);

describe('a page of the moves this device knows', () => {
  it('holds the newest first, then each page the ones before the last of the page before', () => {
    expect(ids(newestPage(handoffs, { limit: 3 }))).toEqual(['h6', 'h5', 'h4']);
    expect(ids(newestPage(handoffs, { limit: 3, before: 'h4' }))).toEqual(['h3', 'h2', 'h1']);
    expect(ids(newestPage(handoffs, { limit: 3, before: 'h1' }))).toEqual(['h0']);
    expect(ids(newestPage(handoffs, { limit: 3, before: 'h0' }))).toEqual([]);
  });

  it('is empty after a move it does not know, rather than starting again from the newest', () => {
    expect(newestPage(handoffs, { limit: 3, before: 'elsewhere' })).toEqual([]);
  });
});
