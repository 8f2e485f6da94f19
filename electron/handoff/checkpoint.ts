/**
 * The checkpoint body: the session's continuation state at exact commits. Built on the source,
 * sealed and uploaded; on the target it is parsed (after unseal) before anything is used.
 *
 * It carries the whole transcript (every entry the source had, Baton's own notes included), so
 * the target can merge by entry identity and lose nothing however long the session. The body is
 * JSON lines: a first line with everything but the transcript, then one line per entry. The
 * transcript is never one JSON string: entries are encoded and parsed one at a time, so a long
 * session costs its bytes once (and the format can be streamed as it is).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { TranscriptEntrySchema, type AgentView, type TranscriptEntry } from '../../shared/agents.ts';
import { fail, type Failure, type Result } from '../../shared/errors.ts';
import { PermissionLevel, resumeDataSchema, type ResumeData } from '../../shared/provider.ts';
import type { PinnedRepo } from '../runtime/ports.ts';

export const CHECKPOINT_FORMAT = 'baton-checkpoint/2';
/** The earlier format: one JSON object holding the last 200 entries as `transcriptTail`; still read. */
const TAIL_FORMAT = 'baton-checkpoint/1';

const HeadSchema = z.object({
  format: z.enum([CHECKPOINT_FORMAT, TAIL_FORMAT]),
  sessionId: z.string(),
  handoffId: z.string(),
  createdAt: z.number(),
  sourceDeviceId: z.string(),
  sourceDeviceName: z.string().nullable(),
  meta: z.object({
    title: z.string(),
    provider: z.string(),
    prompt: z.string(),
    /** The session's permission level: the target runs with the same (absent in older checkpoints). */
    permission: PermissionLevel.optional(),
    /** The source's CLI version of the provider (e.g. "2.1.332"), null when it has none (absent in older checkpoints). */
    providerVersion: z.string().max(40).nullable().optional(),
  }),
  repos: z.array(
    z.object({
      relPath: z.string(),
      remoteUrl: z.string().nullable(),
      branch: z.string().nullable(),
      commit: z.string(),
      mergeBase: z.string().nullable(),
    }),
  ),
  providerResume: resumeDataSchema.nullable(),
  packets: z.array(z.object({ relPath: z.string(), packet: z.unknown() })),
  agents: z.array(z.custom<AgentView>()),
  /** How many entry lines follow (this format). */
  transcriptEntries: z.number().int().nonnegative().optional(),
  /** The earlier format's tail, in the head itself. */
  transcriptTail: z.array(TranscriptEntrySchema).optional(),
});

export interface Checkpoint {
  format: typeof CHECKPOINT_FORMAT;
  sessionId: string;
  handoffId: string;
  createdAt: number;
  sourceDeviceId: string;
  sourceDeviceName: string | null;
  meta: { title: string; provider: string; prompt: string; permission?: PermissionLevel; providerVersion?: string | null };
  repos: PinnedRepo[];
  providerResume: ResumeData | null;
  packets: { relPath: string; packet: unknown }[];
  agents: AgentView[];
  /** Every transcript entry the source had, in its order. */
  transcript: TranscriptEntry[];
}

const NEWLINE = 0x0a;

/** Serializes a checkpoint to the bytes that get sealed: the head line, then one line per transcript entry. */
export function encodeCheckpoint(checkpoint: Checkpoint): Uint8Array {
  const { transcript, ...rest } = checkpoint;
  const lines: Buffer[] = [Buffer.from(`${JSON.stringify({ ...rest, transcriptEntries: transcript.length })}\n`, 'utf8')];
  // JSON.stringify escapes every newline inside a string, so each entry is exactly one line.
  for (const entry of transcript) lines.push(Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8'));
  return Buffer.concat(lines);
}

const malformed = (message: string): Failure<'malformed_checkpoint'> => fail('malformed_checkpoint', message);

/** The entry lines after the head, parsed one at a time; a failure says which line. */
function decodeEntries(bytes: Buffer, from: number, expected: number): Result<TranscriptEntry[], 'malformed_checkpoint'> {
  const entries: TranscriptEntry[] = [];
  let start = from;
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end < 0) return malformed('The checkpoint transcript ends mid-entry.');
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8', start, end));
    } catch {
      return malformed(`Transcript entry ${entries.length + 1} of the checkpoint is not JSON.`);
    }
    const entry = TranscriptEntrySchema.safeParse(parsed);
    if (!entry.success) return malformed(`Transcript entry ${entries.length + 1} of the checkpoint does not have the expected shape.`);
    entries.push(entry.data);
    start = end + 1;
  }
  if (entries.length !== expected) return malformed(`The checkpoint holds ${entries.length} transcript entries, not ${expected}.`);
  return { ok: true, value: entries };
}

/** Parses unsealed bytes; a body for another session or handoff is refused as `checkpoint_rejected`. */
export function decodeCheckpoint(
  bytes: Uint8Array,
  sessionId: string,
  handoffId: string,
): Result<Checkpoint, 'malformed_checkpoint' | 'checkpoint_rejected'> {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const newline = body.indexOf(NEWLINE);
  const headEnd = newline < 0 ? body.length : newline;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8', 0, headEnd));
  } catch {
    return malformed('The checkpoint body is not JSON.');
  }
  const parsed = HeadSchema.safeParse(json);
  if (!parsed.success) return malformed('The checkpoint body does not have the expected shape.');
  const { transcriptEntries, transcriptTail, ...head } = parsed.data;
  if (head.sessionId !== sessionId || head.handoffId !== handoffId) {
    return fail('checkpoint_rejected', 'The checkpoint belongs to another session or handoff.');
  }
  let transcript: TranscriptEntry[];
  if (head.format === TAIL_FORMAT) {
    transcript = transcriptTail ?? [];
  } else {
    const entries = decodeEntries(body, headEnd + 1, transcriptEntries ?? 0);
    if (!entries.ok) return entries;
    transcript = entries.value;
  }
  return { ok: true, value: { ...(head as Omit<Checkpoint, 'transcript'>), format: CHECKPOINT_FORMAT, transcript } };
}

/** Lower-case hex SHA-256 of `bytes`: the content address of a sealed envelope. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
