/** Lines of a CLI's output are read with a cap: a line over it stops the reading at once and is told, once. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines } from './process-lines.ts';

describe('reading a CLI’s lines', () => {
  it('delivers each line in order, carriage returns taken off, the last one without its newline too', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    const done = readLines(
      stream,
      (line) => lines.push(line),
      () => lines.push('TOO LONG'),
      64,
    );
    stream.write('one\r\ntw');
    stream.write('o\nthree');
    stream.end();
    await done;
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('stops at a line over the cap, says so once, delivers nothing after it, and keeps draining the stream', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    let tooLong = 0;
    const done = readLines(
      stream,
      (line) => lines.push(line),
      () => (tooLong += 1),
      64,
    );
    stream.write('short\n');
    for (let i = 0; i < 100; i += 1) stream.write('x'.repeat(32));
    stream.write('\nafter\n');
    stream.end();
    await done;
    expect(lines).toEqual(['short']);
    expect(tooLong).toBe(1);
    expect(stream.readableEnded).toBe(true);
  });
});
