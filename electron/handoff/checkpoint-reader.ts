/**
 * Reading a checkpoint body (format in checkpoint.ts) as it is unsealed, chunk by chunk: the head
 * line and each entry line parsed one at a time, each provider file and each carried bundle written
 * straight into a private staging folder as its part arrives. The bytes are unauthenticated while they come in, so nothing
 * read is handed out before `end()` — which the caller asks only once the envelope's tag checked —
 * and a refused body's staged files are removed with `discard()`.
 */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TranscriptEntrySchema } from '../../shared/agents.ts';
import { fail, ok, type Failure, type Result } from '../../shared/errors.ts';
import type { PartStager, ResumeData, ResumeFile } from '../../shared/provider.ts';
import { ChunkWriter } from '../io/file-chunks.ts';
import { LineWriter } from '../io/line-writer.ts';
import {
  CARRY_FORMAT,
  CHECKPOINT_FORMAT,
  CHECKPOINT_LINE_MAX_BYTES,
  HeadSchema,
  PART_LENGTH_BYTES,
  TAIL_FORMAT,
  type Checkpoint,
  type CheckpointHead,
} from './checkpoint.ts';
import { NEWEST_ENTRIES, NewestEntries, transcriptFile, transcriptOf } from './checkpoint-transcript.ts';
import { SMALL_PART_BYTES, SmallParts } from './small-parts.ts';
import { StagedLines } from './staged-lines.ts';

export type CheckpointReadCode = 'malformed_checkpoint' | 'checkpoint_rejected';

const NEWLINE = 0x0a;
const malformed = (message: string): Failure<'malformed_checkpoint'> => fail('malformed_checkpoint', message);

/** A part the head names: its name and size, where it is staged, and the provider file it is (null: a carried bundle). */
interface PartFile {
  name: string;
  size: number;
  path: string;
  provider: ResumeFile | null;
}

/** The part being received: its index, its length, what has arrived, and the file it goes to. */
interface PartInProgress {
  index: number;
  size: number;
  received: number;
  writer: ChunkWriter | StagedLines;
}

/**
 * Asked as each provider file's part begins (`file.path` is where it is staged): how its provider
 * rewrites it line by line into staging, or null to stage its bytes as they are. The head is not yet
 * authenticated.
 */
export type StagePart = (head: CheckpointHead, resume: ResumeData, file: ResumeFile) => Promise<PartStager | null>;

export class CheckpointReader {
  private stage: 'head' | 'entries' | 'parts' | 'done' = 'head';
  private readonly pending: Buffer[] = [];
  private pendingBytes = 0;
  private head: CheckpointHead | null = null;
  /** The head's provider data with each file's staged path, made once (not once per part). */
  private resume: ResumeData | null = null;
  /** Entry lines are staged to a file as they arrive (checked one by one), the newest kept at hand. */
  private entries = 0;
  private readonly newest = new NewestEntries();
  private staged: LineWriter | null = null;
  private staging: Promise<void> | null = null;
  private expectedEntries = 0;
  /** The parts that follow the entries, in order: the provider's files, then the carried bundles. */
  private parts: PartFile[] = [];
  private readonly lengthBytes = Buffer.alloc(PART_LENGTH_BYTES);
  private lengthFilled = 0;
  private part: PartInProgress | null = null;
  private partsDone = 0;
  /** Small parts being written while the next are read (small-parts.ts). */
  private readonly smallParts = new SmallParts();
  private failure: Failure<CheckpointReadCode> | null = null;

  /** `stagingDir` is where provider files are written (made on first use; removed by `discard`); `stagePart`: how each is rewritten there. */
  constructor(
    private readonly stagingDir: string,
    private readonly sessionId: string,
    private readonly handoffId: string,
    private readonly stagePart?: StagePart,
  ) {}

  /** Takes the next bytes of the body (the chunk may be reused once this resolves). */
  async push(chunk: Buffer): Promise<void> {
    let at = 0;
    while (at < chunk.length && this.failure === null) {
      if (this.stage === 'head' || this.stage === 'entries') {
        at = this.takeLine(chunk, at);
        if (this.staging) await this.settleStaging();
      } else if (this.stage === 'parts') at = await this.takePart(chunk, at);
      else this.failure = malformed('The checkpoint has bytes after its last part.');
    }
  }

  /** The checkpoint, once every byte is in: complete and for this session and handoff, or why not. */
  async end(): Promise<Result<Checkpoint, CheckpointReadCode>> {
    // The first format is one JSON object with no line after it.
    if (this.failure === null && this.stage === 'head' && this.pendingBytes > 0) this.onHead(this.drainPending());
    if (this.failure) return this.failure;
    if (this.stage === 'head') return malformed('The checkpoint body is empty.');
    if (this.stage === 'entries') {
      return this.pendingBytes > 0
        ? malformed('The checkpoint transcript ends mid-entry.')
        : malformed(`The checkpoint holds ${this.entries} transcript entries, not ${this.expectedEntries}.`);
    }
    if (this.stage === 'parts') return malformed('The checkpoint ends before its last provider file.');
    try {
      await this.smallParts.settle();
    } catch (error) {
      return malformed(`The checkpoint's provider files could not be staged: ${(error as Error).message}`);
    }
    const { transcriptEntries: _count, transcriptTail, providerResume, ...head } = this.head!;
    if (head.sessionId !== this.sessionId || head.handoffId !== this.handoffId) {
      return fail('checkpoint_rejected', 'The checkpoint belongs to another session or handoff.');
    }
    const resume = providerResume ? this.resume : null;
    const { carry: headCarry, ...plain } = head;
    const carry = headCarry && {
      ...headCarry,
      repos: headCarry.repos.map(({ bundleSize, ...repo }, i) => ({ ...repo, bundle: { path: this.carryPath(i), size: bundleSize } })),
    };
    await this.staged?.close();
    this.staged = null;
    const transcript =
      head.format === TAIL_FORMAT
        ? transcriptOf(transcriptTail ?? [])
        : this.entries <= NEWEST_ENTRIES
          ? transcriptOf(this.newest.list())
          : transcriptFile(this.transcriptPath(), this.entries, this.newest.list());
    return ok({
      ...(plain as Omit<Checkpoint, 'transcript' | 'providerResume' | 'carry'>),
      format: carry ? CARRY_FORMAT : CHECKPOINT_FORMAT,
      providerResume: resume,
      transcript,
      ...(carry ? { carry } : {}),
    });
  }

  /** Removes whatever was staged (a body refused, or done with). */
  async discard(): Promise<void> {
    await this.part?.writer.close().catch(() => undefined);
    this.part = null;
    await this.smallParts.settle().catch(() => undefined);
    await this.staged?.close().catch(() => undefined);
    this.staged = null;
    await rm(this.stagingDir, { recursive: true, force: true });
  }

  private transcriptPath(): string {
    return join(this.stagingDir, 'transcript.jsonl');
  }

  /** Waits for the staging file's last write (or its creation); a failure fails the read. */
  private async settleStaging(): Promise<void> {
    const staging = this.staging;
    this.staging = null;
    try {
      await staging;
    } catch (error) {
      this.failure = malformed(`The checkpoint's transcript could not be staged: ${(error as Error).message}`);
    }
  }

  private partPath(index: number): string {
    return join(this.stagingDir, `part-${index}`);
  }

  private carryPath(index: number): string {
    return join(this.stagingDir, `carried-${index}.bundle`);
  }

  /** The head's provider data with each file's path in staging. */
  private stagedResume({ files, ...rest }: NonNullable<CheckpointHead['providerResume']>): ResumeData {
    return files ? { ...rest, files: files.map((f, i) => ({ ...f, path: this.partPath(i) })) } : rest;
  }

  /** Reads up to the next newline (or keeps the rest for later); returns where it stopped. */
  private takeLine(chunk: Buffer, at: number): number {
    const end = chunk.indexOf(NEWLINE, at);
    const stop = end < 0 ? chunk.length : end;
    if (this.pendingBytes + (stop - at) > CHECKPOINT_LINE_MAX_BYTES) {
      this.failure = malformed(`A checkpoint line is longer than ${CHECKPOINT_LINE_MAX_BYTES} bytes.`);
      return chunk.length;
    }
    // Copied: the caller may reuse its chunk.
    this.pending.push(Buffer.from(chunk.subarray(at, stop)));
    this.pendingBytes += stop - at;
    if (end < 0) return chunk.length;
    const line = this.drainPending();
    if (this.stage === 'head') this.onHead(line);
    else this.onEntry(line);
    return end + 1;
  }

  private drainPending(): Buffer {
    const line = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending.length = 0;
    this.pendingBytes = 0;
    return line;
  }

  private onHead(line: Buffer): void {
    let json: unknown;
    try {
      json = JSON.parse(line.toString('utf8'));
    } catch {
      this.failure = malformed('The checkpoint body is not JSON.');
      return;
    }
    const parsed = HeadSchema.safeParse(json);
    if (!parsed.success) {
      this.failure = malformed('The checkpoint body does not have the expected shape.');
      return;
    }
    const carried = parsed.data.format === CARRY_FORMAT ? parsed.data.carry : undefined;
    if ((parsed.data.format === CARRY_FORMAT) !== (parsed.data.carry !== undefined)) {
      this.failure = malformed('The checkpoint names carried work its format does not hold.');
      return;
    }
    this.head = parsed.data;
    this.resume = parsed.data.providerResume ? this.stagedResume(parsed.data.providerResume) : null;
    const provider = parsed.data.format === CHECKPOINT_FORMAT || carried ? (this.resume?.files ?? []) : [];
    this.parts = [
      ...provider.map((file) => ({ name: file.name, size: file.size, path: file.path, provider: file })),
      ...(carried?.repos ?? []).map((repo, i) => ({
        name: repo.relPath,
        size: repo.bundleSize,
        path: this.carryPath(i),
        provider: null,
      })),
    ];
    this.expectedEntries = parsed.data.format === TAIL_FORMAT ? 0 : (parsed.data.transcriptEntries ?? 0);
    // A transcript short enough to be kept whole among the newest entries is not staged to a file.
    if (this.expectedEntries > NEWEST_ENTRIES) {
      this.staging = (async () => {
        mkdirSync(this.stagingDir, { recursive: true, mode: 0o700 });
        this.staged = await LineWriter.create(this.transcriptPath());
      })();
    }
    this.afterEntries();
  }

  private onEntry(line: Buffer): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.toString('utf8'));
    } catch {
      this.failure = malformed(`Transcript entry ${this.entries + 1} of the checkpoint is not JSON.`);
      return;
    }
    const entry = TranscriptEntrySchema.safeParse(parsed);
    if (!entry.success) {
      this.failure = malformed(`Transcript entry ${this.entries + 1} of the checkpoint does not have the expected shape.`);
      return;
    }
    this.entries += 1;
    this.newest.push(entry.data);
    // The line as it came (checked above); written before the next line is taken (push awaits it).
    if (this.staged) this.staging = this.staged.writeParts([line]) ?? null;
    this.afterEntries();
  }

  /** Moves on from the entries once all are in: to the parts (this format's files), else done. */
  private afterEntries(): void {
    if (this.entries < this.expectedEntries) {
      this.stage = 'entries';
      return;
    }
    this.stage = this.parts.length > this.partsDone ? 'parts' : 'done';
  }

  /** Reads a part's length prefix, then its bytes into its staged file; returns where it stopped. */
  private async takePart(chunk: Buffer, at: number): Promise<number> {
    if (this.part === null) {
      const take = Math.min(PART_LENGTH_BYTES - this.lengthFilled, chunk.length - at);
      chunk.copy(this.lengthBytes, this.lengthFilled, at, at + take);
      this.lengthFilled += take;
      if (this.lengthFilled < PART_LENGTH_BYTES) return at + take;
      this.lengthFilled = 0;
      const size = Number(this.lengthBytes.readBigUInt64BE());
      const expected = this.parts[this.partsDone]!;
      if (size !== expected.size) {
        const what = expected.provider ? `Provider file ${expected.name}` : `The carried changes of ${expected.name}`;
        this.failure = malformed(`${what} of the checkpoint is ${size} bytes, not ${expected.size}.`);
        return chunk.length;
      }
      if (this.partsDone === 0) mkdirSync(this.stagingDir, { recursive: true, mode: 0o700 });
      at += take;
      if (size <= SMALL_PART_BYTES && chunk.length - at >= size) return this.takeSmallPart(chunk, at, size);
      this.part = { index: this.partsDone, size, received: 0, writer: await this.partWriter() };
    }
    const part = this.part;
    const take = Math.min(part.size - part.received, chunk.length - at);
    if (take > 0) await part.writer.write(chunk.subarray(at, at + take));
    part.received += take;
    if (part.received === part.size) {
      await (part.writer instanceof StagedLines ? part.writer.finish() : part.writer.close());
      this.part = null;
      this.partDone();
    }
    return at + take;
  }

  /** A small part whole in `chunk` from `at`: copied and written while the next parts are read. */
  private async takeSmallPart(chunk: Buffer, at: number, size: number): Promise<number> {
    const part = this.parts[this.partsDone]!;
    const stager = part.provider ? await this.stagerOf(part.provider) : null;
    await this.smallParts.add(part.path, Buffer.from(chunk.subarray(at, at + size)), stager);
    this.partDone();
    return at + size;
  }

  private partDone(): void {
    this.partsDone += 1;
    if (this.partsDone === this.parts.length) this.stage = 'done';
  }

  /** How part `file` is rewritten as it is staged (its provider's stager), or null to stage it as it is. */
  private async stagerOf(file: ResumeFile): Promise<PartStager | null> {
    return this.stagePart ? this.stagePart(this.head!, this.resume!, file) : null;
  }

  /** Where the next part goes: through its provider's stager when it has one, else as it is. */
  private async partWriter(): Promise<ChunkWriter | StagedLines> {
    const part = this.parts[this.partsDone]!;
    const stager = part.provider ? await this.stagerOf(part.provider) : null;
    return stager ? StagedLines.create(part.path, part.size, stager) : ChunkWriter.create(part.path);
  }
}
