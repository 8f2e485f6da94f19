/** Display formats: a session title keeps a fork's mark apart from the words a narrow list may shorten. */
import { describe, expect, it } from 'vitest';
import { titleAndMarks } from './format.ts';

describe('a session title in a narrow list', () => {
  it("keeps a fork's mark, and a fork of a fork's, apart from the words before it", () => {
    expect(titleAndMarks('Fix the flaky parser test (fork)')).toEqual(['Fix the flaky parser test', ' (fork)']);
    expect(titleAndMarks('Fix the flaky parser test (fork) (fork)')).toEqual(['Fix the flaky parser test', ' (fork) (fork)']);
  });

  it('leaves any other title whole', () => {
    expect(titleAndMarks('Fix the flaky parser test')).toEqual(['Fix the flaky parser test', '']);
    expect(titleAndMarks('(fork) of nothing')).toEqual(['(fork) of nothing', '']);
    expect(titleAndMarks('(fork)')).toEqual(['(fork)', '']);
  });
});
