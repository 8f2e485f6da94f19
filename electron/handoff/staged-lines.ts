/**
 * A provider file staged through its provider's line rewriter (PartStager) as the checkpoint reader
 * receives its part: the bytes are split into lines as they arrive (a line split across chunks is
 * carried), and what the stager gives for each line is written through a LineWriter, so the import
 * finds the file already rewritten. Lines end as forEachLine reads them: at each newline, and a last
 * line without one.
 */
import type { PartStager } from '../../shared/provider.ts';
import { LineWriter } from '../io/line-writer.ts';

const NEWLINE = 0x0a;

export class StagedLines {
  /** The start of a line split across chunks, each piece copied (joined once, at its end). */
  private readonly carry: Buffer[] = [];

  private constructor(
    private readonly out: LineWriter,
    private readonly stager: PartStager,
  ) {}

  /** Creates (or truncates) `path` for the part's rewritten lines. */
  static async create(path: string, stager: PartStager): Promise<StagedLines> {
    return new StagedLines(await LineWriter.create(path), stager);
  }

  /** Takes the part's next bytes (the chunk may be reused once this resolves). */
  async write(chunk: Buffer): Promise<void> {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      const writing = this.put(this.carried(chunk.subarray(start, end)));
      if (writing) await writing;
      start = end + 1;
    }
    if (start < chunk.length) this.carry.push(Buffer.from(chunk.subarray(start)));
  }

  /** The part is complete: its last line, the file closed, then the stager told. */
  async finish(): Promise<void> {
    if (this.carry.length > 0) await this.put(this.carried(Buffer.alloc(0)));
    await this.out.close();
    await this.stager.end();
  }

  /** Closes the file without finishing (the body was refused). */
  async close(): Promise<void> {
    await this.out.close();
  }

  /** The line ending with `tail`: what was carried joined with it. */
  private carried(tail: Buffer): Buffer {
    if (this.carry.length === 0) return tail;
    const line = Buffer.concat([...this.carry, tail]);
    this.carry.length = 0;
    return line;
  }

  private put(bytes: Buffer): Promise<void> | undefined {
    const parts = this.stager.line(bytes);
    return parts.length > 0 ? this.out.writeParts(parts) : undefined;
  }
}
