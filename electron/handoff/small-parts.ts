/**
 * The small provider files of a checkpoint (a Claude session's thousands of side files: subagent
 * transcripts, tool results) written into staging several at a time. Creating a file costs a
 * round of file-system metadata work that, one after another on a busy disk, dominates staging; so
 * a part that arrived whole within one chunk of the body is copied (it is small) and written by
 * the thread pool while the reader goes on with the next, up to IN_FLIGHT at once, and nothing of
 * it is done on the process's own thread but the stager's line rewrite.
 */
import { writeFile } from 'node:fs/promises';
import type { PartStager } from '../../shared/provider.ts';
import { LineSplitter } from '../io/line-reader.ts';

/** A part up to this size that is whole in one chunk is written this way. */
export const SMALL_PART_BYTES = 256 * 1024;
/** Writes in flight at once (the thread pool runs four; the rest wait their turn there). */
const IN_FLIGHT = 32;
const NEWLINE = Buffer.from('\n');

/** Writes small parts concurrently; `settle` waits for all and reports the first failure. */
export class SmallParts {
  private readonly inFlight = new Set<Promise<void>>();
  private failure: Error | null = null;

  /** Writes `bytes` (the caller's own copy) to `path`, through `stager` when given; waits only while IN_FLIGHT writes run. */
  async add(path: string, bytes: Buffer, stager: PartStager | null): Promise<void> {
    while (this.inFlight.size >= IN_FLIGHT) await Promise.race(this.inFlight);
    const writing = writePart(path, bytes, stager)
      .catch((error: Error) => void (this.failure ??= error))
      .finally(() => this.inFlight.delete(writing));
    this.inFlight.add(writing);
  }

  /** Waits for every write begun; rejects with the first that failed. */
  async settle(): Promise<void> {
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
  }
}

/** One part: its bytes as they are, or each line as its stager rewrites it (the stager then told it is complete). */
async function writePart(path: string, bytes: Buffer, stager: PartStager | null): Promise<void> {
  if (stager === null) return writeFile(path, bytes, { mode: 0o600 });
  // The parts a stager gives may be views of its line: of `bytes`, which this write owns.
  const out: Uint8Array[] = [];
  const lines = new LineSplitter((line) => {
    const parts = stager.line(line);
    if (parts.length === 0) return;
    for (const part of parts) out.push(typeof part === 'string' ? Buffer.from(part) : part);
    out.push(NEWLINE);
  }, SMALL_PART_BYTES);
  await lines.push(bytes);
  await lines.end();
  await writeFile(path, Buffer.concat(out), { mode: 0o600 });
  await stager.end();
}
