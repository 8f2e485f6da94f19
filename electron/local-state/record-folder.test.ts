import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RecordFolder } from './record-folder.ts';

const Note = z.object({ id: z.string(), text: z.string() });
type Note = z.infer<typeof Note>;

const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-record-folder-'));
  dirs.push(dir);
  return join(dir, 'notes');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const open = (dir: string) => new RecordFolder<Note>(dir, Note, (n) => n.id);
const onDisk = (dir: string, id: string) => JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')) as Note;

describe('RecordFolder', () => {
  it('answers reads from memory at once and has the record on disk once settled', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('n1', { id: 'n1', text: 'first' }, true);
    expect(notes.get('n1')).toEqual({ id: 'n1', text: 'first' });
    await notes.settled();
    expect(onDisk(dir, 'n1')).toEqual({ id: 'n1', text: 'first' });
    expect(open(dir).get('n1')).toEqual({ id: 'n1', text: 'first' });
  });

  it('writes the newest content when puts of one record overlap, and leaves no temp file', async () => {
    const dir = folder();
    const notes = open(dir);
    for (let i = 0; i < 50; i += 1) notes.put('n1', { id: 'n1', text: `v${i}` }, i % 7 === 0);
    await notes.settled(true);
    expect(onDisk(dir, 'n1').text).toBe('v49');
    expect(readdirSync(dir)).toEqual(['n1.json']);
  });

  it('settles durable writes without waiting for a cache-only write queued after them', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('durable', { id: 'durable', text: 'kept' }, true);
    await notes.settled();
    expect(onDisk(dir, 'durable').text).toBe('kept');
    notes.put('cache', { id: 'cache', text: 'later' }, false);
    await notes.settled(true);
    expect(onDisk(dir, 'cache').text).toBe('later');
  });

  it('refuses to settle while a record cannot be written, and writes it once the disk takes it again', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('n1', { id: 'n1', text: 'kept' }, true);
    // The folder goes away under the queued write (folder permissions would not stop root).
    rmSync(dir, { recursive: true, force: true });
    await expect(notes.settled()).rejects.toThrow(/could not write local record n1/);
    expect(notes.get('n1')?.text).toBe('kept');
    await expect(notes.settled()).rejects.toThrow(/could not write local record n1/);
    mkdirSync(dir, { recursive: true });
    await notes.settled();
    expect(onDisk(dir, 'n1').text).toBe('kept');
  });

  it('refuses an id that could leave its folder, storing nothing', () => {
    const notes = open(folder());
    expect(() => notes.put('../x', { id: '../x', text: 'no' }, true)).toThrow(/invalid record id/);
    expect(notes.all()).toEqual([]);
  });

  it('lists a truncated or misshapen record with why, instead of dropping it silently, until it is written again', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('whole', { id: 'whole', text: 'fine' }, true);
    notes.put('cut', { id: 'cut', text: 'a record that will be cut short' }, true);
    await notes.settled();
    const text = readFileSync(join(dir, 'cut.json'), 'utf8');
    writeFileSync(join(dir, 'cut.json'), text.slice(0, text.length / 2));
    writeFileSync(join(dir, 'odd.json'), JSON.stringify({ id: 'odd' }));
    const reopened = open(dir);
    expect(reopened.get('whole')?.text).toBe('fine');
    expect(reopened.get('cut')).toBeUndefined();
    expect(Object.fromEntries(reopened.unreadable())).toEqual({
      cut: 'it is not complete JSON (truncated?)',
      odd: expect.stringMatching(/^it does not have the expected shape \(text: /),
    });
    reopened.put('cut', { id: 'cut', text: 'rebuilt' }, true);
    expect([...reopened.unreadable().keys()]).toEqual(['odd']);
    await reopened.settled();
  });
});
