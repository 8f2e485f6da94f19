import { describe, expect, it } from 'vitest';
import { movePath, parseJsonLines, readableLines } from './json-lines.ts';

describe('JSON lines', () => {
  it('parses objects and skips blank lines', () => {
    expect(parseJsonLines('{"a":1}\n\n{"b":2}\n')).toEqual({ ok: true, value: [{ a: 1 }, { b: 2 }] });
  });

  it('fails on the first line that is not a JSON object, naming it', () => {
    expect(parseJsonLines('{"a":1}\n[1]\n')).toMatchObject({ ok: false, message: 'line 2 is not a JSON object' });
    expect(parseJsonLines('{"a":1}\n{x\n')).toMatchObject({ ok: false, message: 'line 2 is not JSON' });
  });

  it('reads what it can when only history is wanted', () => {
    expect(readableLines('{"a":1}\n{x\n"s"\n{"b":2}')).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('moves paths under the source workspace and maps others to the target', () => {
    expect(movePath('/src', '/src', '/dst')).toBe('/dst');
    expect(movePath('/src/a/b', '/src', '/dst')).toBe('/dst/a/b');
    expect(movePath('/srcx', '/src', '/dst')).toBe('/dst');
  });
});
