import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../shared/agents.ts';
import type { LogWindow } from './log-window.ts';
import { BLOCK_ENTRIES, WINDOW_ENTRIES } from './log-window.ts';
import { TranscriptLogs } from './transcript-log.ts';

const entry = (i: number): TranscriptEntry => ({
  id: `e${i}`,
  at: i,
  role: i % 3 === 0 ? 'user' : 'assistant',
  agentId: 'main',
  text: `entry ${i}\n${'ü'.repeat(Math.abs(i) % 7)}`,
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => entry(from + i));
const folder = () => mkdtempSync(join(tmpdir(), 'baton-tlog-'));

/** The window TranscriptLogs holds of `id` (its private map, read for the memory bound only). */
const windowOf = (logs: TranscriptLogs, id: string) => (logs as unknown as { logs: Map<string, LogWindow> }).logs.get(id)!;

async function collect(entries: AsyncIterable<TranscriptEntry>): Promise<TranscriptEntry[]> {
  const all: TranscriptEntry[] = [];
  for await (const e of entries) all.push(e);
  return all;
}

describe('TranscriptLogs: a bounded window over the log on disk', () => {
  it('holds only the newest entries in memory and reads any older page from the file through its offset index', async () => {
    const dir = folder();
    const written = new TranscriptLogs(dir);
    written.append('s', range(0, 5000), true);
    await written.settled();
    expect(windowOf(written, 's').tail.length).toBeLessThanOrEqual(2 * WINDOW_ENTRIES);

    const logs = new TranscriptLogs(dir);
    expect(logs.count('s')).toBe(5000);
    expect(logs.bytes('s')).toBe(statSync(join(dir, 's.jsonl')).size);
    const window = windowOf(logs, 's');
    expect(window.tail.length).toBeLessThanOrEqual(2 * WINDOW_ENTRIES);
    expect(window.blocks).toHaveLength(Math.ceil(5000 / BLOCK_ENTRIES));
    // From the start, from inside a block, across blocks, up to and into the window, past the end.
    expect(logs.page('s', 0, 3)).toEqual(range(0, 3));
    expect(logs.page('s', 1000 + 17, 200)).toEqual(range(1017, 1217));
    expect(logs.page('s', window.tailFrom - 5, 10)).toEqual(range(window.tailFrom - 5, window.tailFrom + 5));
    expect(logs.page('s', 4990, 200)).toEqual(range(4990, 5000));
    expect(logs.page('s', 6000, 10)).toEqual([]);
    expect(logs.newest('s', 2)).toEqual(range(4998, 5000));
    expect(await collect(logs.entries('s'))).toEqual(range(0, 5000));
  });

  it('pages entries appended since the start, written or not, and keeps the index across appends', async () => {
    const dir = folder();
    const logs = new TranscriptLogs(dir);
    logs.append('s', range(0, 100), false);
    // Not written yet: answered from memory.
    expect(logs.page('s', 10, 5)).toEqual(range(10, 15));
    for (let i = 100; i < 3000; i += 100) {
      logs.append('s', range(i, i + 100), false);
      await logs.settled(true);
    }
    logs.append('s', [entry(3000)], false);
    expect(logs.count('s')).toBe(3001);
    expect(logs.page('s', 129, 3)).toEqual(range(129, 132));
    expect(await collect(logs.entries('s'))).toEqual(range(0, 3001));
    await logs.settled(true);
    expect(new TranscriptLogs(dir).page('s', 2000, 2)).toEqual(range(2000, 2002));
  });

  it('drops a partial last line left by a crash, counts and pages without it, and appends after it', async () => {
    const dir = folder();
    const logs = new TranscriptLogs(dir);
    logs.append('s', range(0, 1500), true);
    await logs.settled();
    const file = join(dir, 's.jsonl');
    const whole = statSync(file).size;
    appendFileSync(file, '{"id":"e1500","at":1500,"ro');
    const reopened = new TranscriptLogs(dir);
    expect(reopened.count('s')).toBe(1500);
    expect(statSync(file).size).toBe(whole);
    expect(reopened.page('s', 1495, 10)).toEqual(range(1495, 1500));
    expect(reopened.page('s', 3, 2)).toEqual(range(3, 5));
    reopened.append('s', [entry(9000)], true);
    await reopened.settled();
    const again = new TranscriptLogs(dir);
    expect(again.count('s')).toBe(1501);
    expect(again.page('s', 1499, 5)).toEqual([entry(1499), entry(9000)]);
  });

  it('skips a line that holds no entry the same way in the count, the pages and the stream', async () => {
    const dir = folder();
    const lines = range(0, 300).map((e) => JSON.stringify(e));
    lines.splice(100, 0, 'not json', '{"id":"no role"}');
    writeFileSync(join(dir, 's.jsonl'), `${lines.join('\n')}\n`);
    const logs = new TranscriptLogs(dir);
    expect(logs.count('s')).toBe(300);
    expect(logs.page('s', 98, 4)).toEqual(range(98, 102));
    expect(await collect(logs.entries('s'))).toEqual(range(0, 300));
  });

  it('answers which ids it holds, from the window or by reading the log once', async () => {
    const dir = folder();
    const logs = new TranscriptLogs(dir);
    logs.append('s', range(0, 3000), true);
    await logs.settled();
    const known = await new TranscriptLogs(dir).known('s', ['e5', 'e2999', 'nope', 'e1500', 'e3000']);
    expect([...known].sort()).toEqual(['e1500', 'e2999', 'e5']);
  });

  it('finds the first and the newest matching entries, reading the log only past the window', async () => {
    const dir = folder();
    const logs = new TranscriptLogs(dir);
    logs.append('s', [...range(0, 2000), { ...entry(2000), role: 'system' }], true);
    await logs.settled();
    const reopened = new TranscriptLogs(dir);
    expect(await reopened.find('s', (e) => e.role === 'assistant')).toEqual(entry(1));
    expect(await reopened.findLast('s', (e) => e.role === 'user')).toEqual(entry(1998));
    expect(await reopened.findLast('s', (e) => e.at === 7)).toEqual(entry(7));
    expect(await reopened.findLast('s', (e) => e.at === -1)).toBeUndefined();
  });

  it('appends a rewrite that only adds after the lines on disk, and rewrites one that changes them, pages right after each', async () => {
    const dir = folder();
    const file = join(dir, 's.jsonl');
    const logs = new TranscriptLogs(dir);
    logs.append('s', range(0, 2000), true);
    await logs.settled();
    const inode = statSync(file).ino;
    await logs.rewrite(
      's',
      async function* (mine) {
        yield* mine;
        yield* range(2000, 2100);
      },
      true,
    );
    expect(statSync(file).ino).toBe(inode);
    expect(logs.count('s')).toBe(2100);
    expect(logs.bytes('s')).toBe(statSync(file).size);
    expect(logs.page('s', 1990, 20)).toEqual(range(1990, 2010));

    await logs.rewrite(
      's',
      async function* (mine) {
        yield entry(-1);
        yield* mine;
      },
      true,
    );
    expect(statSync(file).ino).not.toBe(inode);
    expect(logs.count('s')).toBe(2101);
    expect(logs.page('s', 0, 3)).toEqual([entry(-1), entry(0), entry(1)]);
    expect(logs.page('s', 700, 2)).toEqual(range(699, 701));
    expect(new TranscriptLogs(dir).page('s', 2098, 5)).toEqual(range(2097, 2100));
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2102);
  });

  it('leaves the log as it was when a rewrite fails part way', async () => {
    const dir = folder();
    const logs = new TranscriptLogs(dir);
    logs.append('s', range(0, 1000), true);
    await logs.settled();
    const before = readFileSync(join(dir, 's.jsonl'));
    const failing = logs.rewrite(
      's',
      async function* (mine) {
        yield entry(-1);
        let n = 0;
        for await (const e of mine) {
          if ((n += 1) === 500) throw new Error('the checkpoint broke off');
          yield e;
        }
      },
      true,
    );
    await expect(failing).rejects.toThrow('the checkpoint broke off');
    expect(readFileSync(join(dir, 's.jsonl')).equals(before)).toBe(true);
    expect(logs.count('s')).toBe(1000);
    expect(logs.page('s', 0, 2)).toEqual(range(0, 2));
    logs.append('s', [entry(1000)], true);
    await logs.settled();
    expect(new TranscriptLogs(dir).page('s', 998, 5)).toEqual(range(998, 1001));
  });
});
