/**
 * A transcript log rewritten from a stream of entries (a Move's merge, transcript-log.ts `rewrite`)
 * without holding either side: each line of the result is compared with the log's line at the same
 * place while they agree, so a result that only adds entries after the lines on disk is appended to
 * the log itself; at the first line that differs (or when the result is shorter) the lines that
 * agreed are copied into a temp file, the rest of the result follows, and the temp file is renamed
 * over the log. The window (log-window.ts) is rebuilt on the way and swapped in only once the file is.
 */
import { renameSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { syncDirectory } from '../io/folder-sync.ts';
import { LineWriter } from '../io/line-writer.ts';
import { readLines, type Line } from './log-lines.ts';
import { BLOCK_ENTRIES, idHash, WINDOW_ENTRIES, type LogWindow } from './log-window.ts';

export interface RewriteJob {
  dir: string;
  path: string;
  log: LogWindow;
  /** The log's entries as they are now (read from it as the result is made). */
  entries: AsyncIterable<TranscriptEntry>;
  through: (entries: AsyncIterable<TranscriptEntry>) => AsyncIterable<TranscriptEntry>;
  durable: boolean;
}

const APPEND_BATCH_BYTES = 1024 * 1024;

/** Where the result's lines go once they differ from the log's (or run past them). */
type Sink =
  { kind: 'compare' } | { kind: 'append'; file: FileHandle; batch: string[]; size: number } | { kind: 'rewrite'; out: LineWriter };

/** Rewrites the log of `job` (see the file header); rejects, leaving the log and its window as they were, when it cannot. */
export async function rewriteLog(job: RewriteJob): Promise<void> {
  const { log, path } = job;
  const before = log.count;
  const written = log.written;
  const writtenBytes = log.writtenBytes;
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  // The lines on disk, to compare the result with: the window's entries when it holds them all (each
  // line was written as its entry's JSON), else read from the file.
  const inMemory = written > 0 && log.clean && log.tailFrom === 0 ? log.tail.slice(0, written) : null;
  let disk = written > 0 && log.clean && !inMemory ? await open(path, 'r') : null;
  const diskLines: AsyncIterator<Line> | null = disk ? readLines(disk, 0, writtenBytes)[Symbol.asyncIterator]() : null;
  const sameAsDisk = async (index: number, entry: TranscriptEntry, line: string): Promise<boolean> => {
    if (inMemory) return inMemory[index] === entry || JSON.stringify(inMemory[index]) === line;
    const onDisk = await diskLines!.next();
    return !onDisk.done && onDisk.value.bytes.toString('utf8') === line;
  };
  let sink: Sink = diskLines || inMemory ? { kind: 'compare' } : { kind: 'rewrite', out: await LineWriter.create(temp) };
  const next = { count: 0, bytes: 0, blocks: [] as number[], newest: [] as TranscriptEntry[], ids: new Set<number>() };

  /** A temp file holding the first `count` lines of the log (those the result agreed with so far). */
  const rewriteFrom = async (count: number): Promise<Sink> => {
    const out = await LineWriter.create(temp);
    if (count > 0) {
      const file = await open(path, 'r');
      try {
        for await (const line of readLines(file, 0, next.bytes)) await out.writeParts([line.bytes]);
      } finally {
        await file.close();
      }
    }
    return { kind: 'rewrite', out };
  };
  const flushBatch = async (s: Extract<Sink, { kind: 'append' }>) => {
    if (s.batch.length === 0) return;
    await s.file.write(s.batch.join(''));
    s.batch = [];
    s.size = 0;
  };

  try {
    for await (const entry of job.through(job.entries)) {
      const line = JSON.stringify(entry);
      if (sink.kind === 'compare') {
        if (next.count < written) {
          if (await sameAsDisk(next.count, entry, line)) {
            record(next, entry, line);
            continue;
          }
          sink = await rewriteFrom(next.count);
        } else {
          const file = await open(path, 'a', 0o600);
          if ((await file.stat()).size !== writtenBytes) await file.truncate(writtenBytes);
          sink = { kind: 'append', file, batch: [], size: 0 };
        }
      }
      if (sink.kind === 'rewrite') await sink.out.write(line);
      else if (sink.kind === 'append') {
        sink.batch.push(`${line}\n`);
        sink.size += line.length + 1;
        if (sink.size >= APPEND_BATCH_BYTES) await flushBatch(sink);
      }
      record(next, entry, line);
    }
    // A result shorter than the log (it dropped a repeated entry): the log is rewritten.
    if (sink.kind === 'compare' && next.count < written) sink = await rewriteFrom(next.count);
    await disk?.close();
    disk = null;
    if (sink.kind === 'append') {
      await flushBatch(sink);
      if (job.durable) await sink.file.sync();
      await sink.file.close();
    } else if (sink.kind === 'rewrite') {
      await sink.out.close(job.durable);
      // Renamed and swapped in with no await between, so no page is read of one file by the other's index.
      renameSync(temp, path);
    }
    next.newest = next.newest.slice(-WINDOW_ENTRIES);
    log.replaced(next, before);
  } catch (error) {
    if (sink.kind === 'append') await sink.file.close().catch(() => undefined);
    if (sink.kind === 'rewrite') await sink.out.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  } finally {
    await disk?.close();
  }
  if (job.durable && sink.kind === 'rewrite') await syncDirectory(job.dir);
}

/** Adds the result's next entry (its line `line`) to the window being built. */
function record(
  next: { count: number; bytes: number; blocks: number[]; newest: TranscriptEntry[]; ids: Set<number> },
  entry: TranscriptEntry,
  line: string,
) {
  if (next.count % BLOCK_ENTRIES === 0) next.blocks.push(next.bytes);
  next.count += 1;
  next.bytes += Buffer.byteLength(line) + 1;
  next.ids.add(idHash(entry.id));
  next.newest.push(entry);
  if (next.newest.length > 2 * WINDOW_ENTRIES) next.newest.splice(0, next.newest.length - WINDOW_ENTRIES);
}
