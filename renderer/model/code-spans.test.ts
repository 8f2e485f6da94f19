/** Text with backticks is cut into words and code, so no backtick is shown as it was typed. */
import { describe, expect, it } from 'vitest';
import { codeSpans } from './code-spans.ts';

describe('code in a text', () => {
  it('takes inline code out of its backticks', () => {
    expect(codeSpans('run `npm test` on laptop')).toEqual([
      { kind: 'text', text: 'run ' },
      { kind: 'code', text: 'npm test' },
      { kind: 'text', text: ' on laptop' },
    ]);
  });

  it('matches a run of backticks with the same run, so code may hold a backtick', () => {
    expect(codeSpans('type `` a`b `` here')).toEqual([
      { kind: 'text', text: 'type ' },
      { kind: 'code', text: 'a`b' },
      { kind: 'text', text: ' here' },
    ]);
  });

  it('leaves a backtick with no match, and a span across lines, as text', () => {
    expect(codeSpans("it's 5` long")).toEqual([{ kind: 'text', text: "it's 5` long" }]);
    expect(codeSpans('``a` b')).toEqual([{ kind: 'text', text: '``a` b' }]);
    expect(codeSpans('a `b\nc` d')).toEqual([{ kind: 'text', text: 'a `b\nc` d' }]);
    expect(codeSpans('plain')).toEqual([{ kind: 'text', text: 'plain' }]);
  });

  it('takes a fenced block out of its fences, language line and all', () => {
    expect(codeSpans('Try this:\n```ts\nconst a = 1;\nconst b = `x`;\n```\nthen `npm test`.')).toEqual([
      { kind: 'text', text: 'Try this:' },
      { kind: 'block', text: 'const a = 1;\nconst b = `x`;' },
      { kind: 'text', text: 'then ' },
      { kind: 'code', text: 'npm test' },
      { kind: 'text', text: '.' },
    ]);
  });
});
