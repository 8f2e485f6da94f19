import { describe, expect, it } from 'vitest';
import { forEachTextLine, LineTooLong } from '../io/line-reader.ts';
import { entryWithout, isEarlierState, type LineSource } from './earlier-state.ts';

const text =
  (content: string): LineSource =>
  (each) =>
    forEachTextLine(content, each);
const equal = (a: string, b: string) => a === b;

describe('an earlier state of a provider session file', () => {
  it('is one whose entries are the first entries of the incoming file, in order (blank lines aside)', async () => {
    expect(await isEarlierState(text('a\nb\n'), text('a\nb\nc\n'), equal)).toBe(true);
    expect(await isEarlierState(text('a\n\nb\n'), text('a\nb\n'), equal)).toBe(true);
    expect(await isEarlierState(text(''), text('a\n'), equal)).toBe(true);
    expect(await isEarlierState(text('a\nx\n'), text('a\nb\nc\n'), equal)).toBe(false);
    expect(await isEarlierState(text('a\nb\nc\n'), text('a\nb\n'), equal)).toBe(false);
  });

  it('stops reading both files at the first difference', async () => {
    let read = 0;
    const long: LineSource = async (each) => {
      for (let i = 0; i < 1000; i++) await each(`line ${i}`, (read += 1));
      return 1000;
    };
    expect(await isEarlierState(text('line 0\nother\n'), long, equal)).toBe(false);
    expect(read).toBeLessThan(5);
  });

  it('counts an existing file it cannot read as not earlier, and rejects when the incoming one cannot be read', async () => {
    const failing: LineSource = async (each) => {
      await each('a', 1);
      throw new LineTooLong(2, 10);
    };
    expect(await isEarlierState(failing, text('a\nb\nc\n'), equal)).toBe(false);
    await expect(isEarlierState(text('a\nb\n'), failing, equal)).rejects.toThrow('line 2 is longer than 10 bytes');
  });

  it('compares JSON entries without the fields an import rewrites', () => {
    expect(entryWithout('{"uuid":"u","cwd":"/a","x":1}', ['cwd'])).toBe(entryWithout('{"uuid":"u","cwd":"/b","x":1}', ['cwd']));
    expect(entryWithout('not json', ['cwd'])).toBeNull();
  });
});
