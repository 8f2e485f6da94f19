/**
 * A provider file staged through its provider's line rewriter (PartStager) as the checkpoint reader
 * receives its part: the bytes are split into lines as they arrive (a line split across chunks is
 * carried), and what the stager gives for each line is written through a LineWriter, so the import
 * finds the file already rewritten. Lines end as forEachLine reads them: at each newline, and a last
 * line without one. A line longer than LINE_MAX_BYTES (the checkpoint's own limit) is never gathered:
 * the stager is told the file is damaged there, and the rest of the part is not written.
 */
import type { PartStager } from '../../shared/provider.ts';
import { LineSplitter, LineTooLong } from '../io/line-reader.ts';
import { LineWriter } from '../io/line-writer.ts';

export class StagedLines {
  private readonly lines: LineSplitter;
  /** Set once a line was over the limit: nothing more is written. */
  private refused = false;

  private constructor(
    private readonly out: LineWriter,
    private readonly stager: PartStager,
    maxLineBytes?: number,
  ) {
    this.lines = new LineSplitter((bytes) => {
      const parts = this.stager.line(bytes);
      return parts.length > 0 ? this.out.writeParts(parts) : undefined;
    }, maxLineBytes);
  }

  /** Creates (or truncates) `path` for the part's `size` bytes of lines; `maxLineBytes` bounds a line (default LINE_MAX_BYTES). */
  static async create(path: string, size: number, stager: PartStager, maxLineBytes?: number): Promise<StagedLines> {
    return new StagedLines(await LineWriter.create(path, size), stager, maxLineBytes);
  }

  /** Takes the part's next bytes (the chunk may be reused once this resolves). */
  async write(chunk: Buffer): Promise<void> {
    if (this.refused) return;
    await this.guarded(() => this.lines.push(chunk));
  }

  /** The part is complete: its last line, the file closed, then the stager told. */
  async finish(): Promise<void> {
    if (!this.refused) await this.guarded(() => this.lines.end());
    await this.out.close();
    await this.stager.end();
  }

  /** Closes the file without finishing (the body was refused). */
  async close(): Promise<void> {
    await this.out.close();
  }

  private async guarded(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof LineTooLong)) throw error;
      this.refused = true;
      this.stager.refuse(error.message);
    }
  }
}
