/**
 * The append-only journal in front of a record folder's files (record-folder.ts).
 *
 * Every change of a record is appended as one line, `{"id":…,"record":…}`, and the lines of one batch
 * go in one write. A durable batch is on disk once one fdatasync returns: no temp file, rename or
 * folder fsync per record, which is what made a durable record write cost several milliseconds.
 * The record files catch up only when the journal has grown past COMPACT_BYTES, and on close: each
 * record as last journaled is then written to its own file (atomically, fsynced), the folder is
 * fsynced once, and the journal starts empty.
 *
 * At start the journal is read over the files, in order, so the last line of a record wins. A line
 * a crash cut short, or one whose append failed, does not parse and is skipped; an append after a
 * failed one starts on a new line, so a torn line never swallows the next.
 */
import { closeSync, existsSync, fdatasync, fstatSync, fsync, ftruncate, openSync, write, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { syncDirectory } from '../io/folder-sync.ts';
import { scanLinesSync } from './log-lines.ts';

/** The journal's name in its record folder (record files end in `.json`, so it is never read as one). */
export const JOURNAL_NAME = 'journal.jsonl';

/** Past this many bytes the journal is folded into the record files and started again. */
export const COMPACT_BYTES = 1024 * 1024;

/**
 * A batch of up to this many characters is written on this thread: a few microseconds into the
 * page cache, against two thread wake-ups through the pool, which a durable batch queued behind it
 * would wait for too. Only the fdatasync goes through the pool. Larger batches (rare: records are
 * small) are written there.
 */
const WRITE_HERE_CHARS = 256 * 1024;

const datasyncFd = promisify(fdatasync);
const fsyncFd = promisify(fsync);
const truncateFd = promisify(ftruncate);
const writeFd = promisify(write);

/** One record as the journal last holds it: the parsed record and its JSON text. */
export interface JournaledRecord {
  id: string;
  record: unknown;
  json: string;
}

/** What a journal file holds: each record's last complete line, in first-seen order, and the file's size. */
export interface JournalContents {
  records: Map<string, JournaledRecord>;
  bytes: number;
  /** Whether the file ends with a newline (else the next append starts a new line first). */
  endsClean: boolean;
}

/** Parses one journal line; null for a line that is cut short or not a journal line. */
function parseLine(line: string): JournaledRecord | null {
  try {
    const parsed = JSON.parse(line) as { id?: unknown; record?: unknown } | null;
    if (typeof parsed?.id !== 'string' || parsed.record === undefined) return null;
    return { id: parsed.id, record: parsed.record, json: JSON.stringify(parsed.record) };
  } catch {
    return null;
  }
}

/** Reads the journal at `path` (synchronously, in chunks): each record's last complete line. */
export function readJournal(path: string): JournalContents {
  const records = new Map<string, JournaledRecord>();
  if (!existsSync(path)) return { records, bytes: 0, endsClean: true };
  const fd = openSync(path, 'r');
  try {
    const bytes = fstatSync(fd).size;
    const complete = scanLinesSync(fd, 0, bytes, (line) => {
      const parsed = parseLine(line.bytes.toString('utf8'));
      if (!parsed) return;
      records.delete(parsed.id);
      records.set(parsed.id, parsed);
    });
    return { records, bytes, endsClean: complete === bytes };
  } finally {
    closeSync(fd);
  }
}

/** The journal line of `id` whose record serialises as `json`. */
export function journalLine(id: string, json: string): string {
  return `{"id":${JSON.stringify(id)},"record":${json}}\n`;
}

/**
 * Writes `text` to `file` so that a crash leaves either the old content or the new, never a mix:
 * a temp file, fsynced, renamed over it. The caller fsyncs the folder (once for many files).
 */
async function writeRecordFile(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, file);
}

/** The journal of one record folder. Not re-entrant: its folder runs one append or compaction at a time. */
export class RecordJournal {
  /**
   * The journal's descriptor while it is open. A plain descriptor, not a FileHandle: a journal left
   * open by a device that stops without closing it (as the crash tests do) stays as it is until the
   * process ends, instead of being closed, with a warning, whenever the collector finds it.
   */
  private fd: number | null = null;
  /** Whether the journal's folder entry is known to be on disk. */
  private created: boolean;
  private bytes: number;
  private endsClean: boolean;
  /** Each record's JSON as last appended since the journal started empty: what compaction writes out. */
  private readonly journaled = new Map<string, string>();

  /** `found`: what the journal held at start, `kept` the records of it the folder took (id → JSON). */
  constructor(
    private readonly dir: string,
    found: Pick<JournalContents, 'bytes' | 'endsClean'>,
    kept: ReadonlyMap<string, string>,
  ) {
    this.created = found.bytes > 0;
    this.bytes = found.bytes;
    this.endsClean = found.endsClean;
    for (const [id, json] of kept) this.journaled.set(id, json);
  }

  private get path(): string {
    return join(this.dir, JOURNAL_NAME);
  }

  /** Appends one line per record; `durable` returns only once they are on disk. Rejects when they may not be. */
  async append(records: readonly (readonly [id: string, json: string])[], durable: boolean): Promise<void> {
    const text = (this.endsClean ? '' : '\n') + records.map(([id, json]) => journalLine(id, json)).join('');
    const fd = this.descriptor();
    this.endsClean = false;
    try {
      if (text.length <= WRITE_HERE_CHARS) writeSync(fd, text);
      else await writeFd(fd, text);
      if (durable) await datasyncFd(fd);
      if (durable && !this.created) await syncDirectory(this.dir);
    } catch (error) {
      // What reached the file may be a part of a line: it will not parse, and the next append starts a
      // new line. The file is opened again (and its folder entry synced again: it may be a new file).
      this.created = false;
      await this.close().catch(() => undefined);
      throw error;
    }
    this.endsClean = true;
    this.created ||= durable;
    this.bytes += Buffer.byteLength(text);
    for (const [id, json] of records) this.journaled.set(id, json);
  }

  /** Whether the journal has grown enough to be folded into the record files. */
  due(): boolean {
    return this.bytes > COMPACT_BYTES;
  }

  /**
   * Writes each record as last journaled to its own file (durably), then empties the journal. A crash
   * in between leaves the journal whole, and reading it over the new files gives the same records.
   */
  async compact(): Promise<void> {
    if (this.bytes === 0) return;
    await Promise.all([...this.journaled].map(([id, json]) => writeRecordFile(join(this.dir, `${id}.json`), json)));
    await syncDirectory(this.dir);
    const fd = this.descriptor();
    await truncateFd(fd, 0);
    await fsyncFd(fd);
    this.bytes = 0;
    this.endsClean = true;
    this.journaled.clear();
  }

  /** Closes the file (it is opened again by the next append). */
  async close(): Promise<void> {
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) closeSync(fd);
  }

  /** The journal's descriptor, opened (for appending, private to this user) when it is not. */
  private descriptor(): number {
    return (this.fd ??= openSync(this.path, 'a', 0o600));
  }
}
