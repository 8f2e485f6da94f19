import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { forEachLine, LINE_CHUNK_BYTES, LineTooLong } from './line-reader.ts';
import { LineWriter } from './line-writer.ts';

const tempFolder = tempFolders('baton-lines-');

describe('line files', () => {
  it('writes lines given as text or as parts of bytes across many chunks, and reads each back with its own bytes', async () => {
    const dir = tempFolder();
    const path = join(dir, 'lines.jsonl');
    const expected: string[] = [];
    const out = await LineWriter.create(path);
    for (let i = 0; i < 3000; i++) {
      const line = `{"n":${i},"text":"${'ünï €'.repeat(i % 97)}","pad":"${'x'.repeat((i * 37) % 1500)}"}`;
      expected.push(line);
      const bytes = Buffer.from(line);
      if (i % 3 === 0) await out.write(line);
      else
        await out.writeParts([
          bytes.subarray(0, 7),
          line.slice(bytes.subarray(0, 7).toString().length, 20),
          bytes.subarray(Buffer.byteLength(line.slice(0, 20))),
        ]);
    }
    const long = `{"long":"${'é'.repeat(LINE_CHUNK_BYTES)}"}`; // longer than a chunk: written on its own
    expected.push(long, '{"after":true}');
    await out.writeParts([long]);
    await out.write('{"after":true}');
    await out.close();
    expect(readFileSync(path, 'utf8')).toBe(`${expected.join('\n')}\n`);
    const read: string[] = [];
    const lines = await forEachLine(path, (line, number, bytes) => {
      expect(number).toBe(read.length + 1);
      expect(bytes?.equals(Buffer.from(line))).toBe(true);
      read.push(line);
    });
    expect(lines).toBe(expected.length);
    expect(read).toEqual(expected);
  });
});

describe('a line over the limit', () => {
  it('stops the read at that line, before the line is gathered, naming it', async () => {
    const dir = tempFolder();
    const path = join(dir, 'long.jsonl');
    writeFileSync(path, `{"a":1}\n{"b":"${'x'.repeat(3 * LINE_CHUNK_BYTES)}"}\n{"c":3}\n`);
    const read: number[] = [];
    const reading = forEachLine(path, (_line, number) => void read.push(number), undefined, LINE_CHUNK_BYTES + 10);
    await expect(reading).rejects.toThrow(new LineTooLong(2, LINE_CHUNK_BYTES + 10));
    expect(read).toEqual([1]);
    expect(await forEachLine(path, () => undefined, undefined, 4 * LINE_CHUNK_BYTES)).toBe(3);
  });
});
