import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { RecordFolder } from './record-folder.ts';
import { COMPACT_BYTES, JOURNAL_NAME } from './record-journal.ts';

const Note = z.object({ id: z.string(), text: z.string() });
type Note = z.infer<typeof Note>;

const tempFolder = tempFolders('baton-record-folder-');
function folder(): string {
  return join(tempFolder(), 'notes');
}

const open = (dir: string) => new RecordFolder<Note>(dir, Note, (n) => n.id);
/** What a restart reads of the record: the record files with the journal read over them. */
const onDisk = (dir: string, id: string) => open(dir).get(id);
/** The record's own file (brought up to date from the journal on close and when the journal grows). */
const inFile = (dir: string, id: string) => JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')) as Note;

describe('RecordFolder', () => {
  it('answers reads from memory at once and has the record on disk once settled', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('n1', { id: 'n1', text: 'first' }, true);
    expect(notes.get('n1')).toEqual({ id: 'n1', text: 'first' });
    await notes.settled();
    expect(onDisk(dir, 'n1')).toEqual({ id: 'n1', text: 'first' });
    // Written through the journal: the record's own file catches up on close, and the journal empties.
    expect(existsSync(join(dir, 'n1.json'))).toBe(false);
    await notes.close();
    expect(inFile(dir, 'n1')).toEqual({ id: 'n1', text: 'first' });
    expect(statSync(join(dir, JOURNAL_NAME)).size).toBe(0);
    expect(onDisk(dir, 'n1')).toEqual({ id: 'n1', text: 'first' });
  });

  it('writes the newest content when puts of one record overlap, and leaves no temp file', async () => {
    const dir = folder();
    const notes = open(dir);
    for (let i = 0; i < 50; i += 1) notes.put('n1', { id: 'n1', text: `v${i}` }, i % 7 === 0);
    await notes.settled(true);
    expect(onDisk(dir, 'n1')?.text).toBe('v49');
    await notes.close();
    expect(inFile(dir, 'n1').text).toBe('v49');
    expect(readdirSync(dir).sort()).toEqual([JOURNAL_NAME, 'n1.json']);
  });

  it('settles durable writes without waiting for a cache-only write queued after them', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('durable', { id: 'durable', text: 'kept' }, true);
    await notes.settled();
    expect(onDisk(dir, 'durable')?.text).toBe('kept');
    notes.put('cache', { id: 'cache', text: 'later' }, false);
    await notes.settled(true);
    expect(onDisk(dir, 'cache')?.text).toBe('later');
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
    expect(onDisk(dir, 'n1')?.text).toBe('kept');
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
    await notes.close();
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

  it('reads a journal whose last line a crash cut short up to that line, and appends after it on a line of its own', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('n1', { id: 'n1', text: 'one' }, true);
    notes.put('n2', { id: 'n2', text: 'two' }, true);
    await notes.settled();
    appendFileSync(join(dir, JOURNAL_NAME), '{"id":"n1","record":{"id":"n1","te');
    const reopened = open(dir);
    expect(reopened.all().sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'n1', text: 'one' },
      { id: 'n2', text: 'two' },
    ]);
    reopened.put('n1', { id: 'n1', text: 'after the crash' }, true);
    await reopened.settled();
    expect(onDisk(dir, 'n1')?.text).toBe('after the crash');
    expect(onDisk(dir, 'n2')?.text).toBe('two');
  });

  it('reads the journal over record files that are older, the last line of a record winning', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('n1', { id: 'n1', text: 'v1' }, true);
    await notes.close();
    const again = open(dir);
    again.put('n1', { id: 'n1', text: 'v2' }, false);
    again.put('n1', { id: 'n1', text: 'v3' }, true);
    await again.settled();
    expect(inFile(dir, 'n1').text).toBe('v1');
    expect(onDisk(dir, 'n1')?.text).toBe('v3');
  });

  it('folds the journal into the record files once it grows past its limit, and reads the same records after', async () => {
    const dir = folder();
    const notes = open(dir);
    const text = 'x'.repeat(4096);
    const puts = Math.ceil(COMPACT_BYTES / text.length) + 10;
    for (let i = 0; i < puts; i += 1) {
      notes.put(`n${i % 3}`, { id: `n${i % 3}`, text: `${i}:${text}` }, true);
      await notes.settled();
    }
    expect(statSync(join(dir, JOURNAL_NAME)).size).toBeLessThan(COMPACT_BYTES);
    expect(inFile(dir, 'n0').text.length).toBeGreaterThan(text.length);
    for (let i = puts - 3; i < puts; i += 1) expect(onDisk(dir, `n${i % 3}`)?.text).toBe(`${i}:${text}`);
  });

  it('keeps a write made while it closes: the write follows the compaction into the journal', async () => {
    const dir = folder();
    const notes = open(dir);
    notes.put('n1', { id: 'n1', text: 'before' }, true);
    const closing = notes.close();
    notes.put('n1', { id: 'n1', text: 'during the close' }, true);
    await closing;
    await notes.settled();
    expect(onDisk(dir, 'n1')?.text).toBe('during the close');
  });
});
