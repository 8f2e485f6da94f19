/**
 * The checkpoint body: the session's continuation state at exact commits. Built on the source,
 * sealed and uploaded; on the target it is read (as it is unsealed, into a private staging folder)
 * and used only once the envelope authenticated.
 *
 * Format `baton-checkpoint/3`, a container, written and read as a stream (checkpoint-writer.ts,
 * checkpoint-reader.ts) so no part of it is ever one string or one buffer:
 *
 *   head line     JSON: everything but the transcript and the provider's files; the provider
 *                 export names its files (name, size) in order
 *   entry lines   the whole transcript, one JSON entry per line (`transcriptEntries` of them)
 *   parts         each provider file in the head's order: its length (u64 big-endian), then its bytes
 *
 * Format `baton-checkpoint/4` is `/3` with carried work (Carry my changes): the head's `carry` names
 * each carried repository's capsule (the commit it was carried against, the source's HEAD, the index's
 * and working state's trees, the bundle's size), and each bundle follows the provider's files as one
 * more part. A checkpoint that carries nothing is written as `/3`, which every target reads; one that
 * carries work is refused by a target that knows only `/3` (its extra parts read as malformed), never
 * opened without its work.
 *
 * Earlier formats are still read: `/2` (head and entry lines, the provider export inline as JSON)
 * and `/1` (one JSON object holding the last 200 entries as `transcriptTail`).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { TranscriptEntrySchema, type AgentView } from '../../shared/agents.ts';
import { CarriedSchema } from '../../shared/carry.ts';
import { PermissionRuleSchema, type PermissionRule } from '../../shared/permission-request.ts';
import { PermissionLevel, PROVIDER_IDS, RESUME_FILES_MAX, type ProviderId, type ResumeData } from '../../shared/provider.ts';
import type { PinnedRepo } from '../ports/git.ts';
import type { CheckpointTranscript } from './checkpoint-transcript.ts';

export const CHECKPOINT_FORMAT = 'baton-checkpoint/3';
/** `/3` with carried work: the head's `carry`, and each capsule's bundle as a part after the provider's files. */
export const CARRY_FORMAT = 'baton-checkpoint/4';
/** Head and entry lines with the provider export inline; still read. */
export const INLINE_FORMAT = 'baton-checkpoint/2';
/** One JSON object holding the last 200 entries as `transcriptTail`; still read. */
export const TAIL_FORMAT = 'baton-checkpoint/1';

/** The longest head line or entry line read (a line longer than this is refused before it is all in memory). */
export const CHECKPOINT_LINE_MAX_BYTES = 16 * 1024 * 1024;
/** The length prefix of each part. */
export const PART_LENGTH_BYTES = 8;

/** One provider file as the head names it. */
interface HeadFile {
  name: string;
  size: number;
}

/**
 * The head's file list: at most RESUME_FILES_MAX files, each exactly `{ name, size }` with a name of
 * 1–500 characters and a whole size. Checked by hand in one loop: a generic schema took tens of
 * milliseconds over 10,000 files, all of them on the target's one thread.
 */
function isHeadFileList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length > RESUME_FILES_MAX) return false;
  for (const file of value as unknown[]) {
    if (typeof file !== 'object' || file === null || Array.isArray(file)) return false;
    const { name, size } = file as Record<string, unknown>;
    if (typeof name !== 'string' || name.length < 1 || name.length > 500) return false;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0 || Object.keys(file).length !== 2) return false;
  }
  return true;
}

const ObjectId = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);

/** One carried repository's capsule as the head names it (its bundle follows as a part). */
const HeadCarriedRepo = z.strictObject({
  relPath: z.string().max(4096),
  base: ObjectId,
  head: ObjectId,
  indexTree: ObjectId,
  workTree: ObjectId,
  bundleSize: z.number().int().nonnegative(),
});

/** What the checkpoint carries: each repository's capsule, what it holds, and the stash the source parks its copy in. */
const HeadCarry = z.strictObject({
  repos: z.array(HeadCarriedRepo).min(1).max(500),
  counts: CarriedSchema.omit({ repos: true, keptAs: true }),
  keptAs: z.string().max(500),
});
export type HeadCarry = z.infer<typeof HeadCarry>;

/** The provider export as the head carries it: its files by name and size (their bytes follow as parts). */
const HeadResumeSchema = z.strictObject({
  provider: z.enum(PROVIDER_IDS),
  format: z.string().min(1).max(100),
  sessionId: z.string().min(1).max(200).nullable(),
  payload: z.json(),
  files: z.custom<HeadFile[]>(isHeadFileList, 'expected at most 10,000 files, each { name, size }').optional(),
});
export type HeadResume = z.infer<typeof HeadResumeSchema>;

export const HeadSchema = z.object({
  format: z.enum([CARRY_FORMAT, CHECKPOINT_FORMAT, INLINE_FORMAT, TAIL_FORMAT]),
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
    /** The session's "Allow for this session" rules: the target keeps them (absent in older checkpoints). */
    permissionRules: z.array(PermissionRuleSchema).max(200).optional(),
    /** The agent the target continues with instead of `provider`, by summary continuation (absent: the same). */
    continueWith: z.enum(PROVIDER_IDS).optional(),
    /** The source's `process.platform` and workspace path: what the agent is told differs (absent in older checkpoints). */
    sourcePlatform: z.string().max(40).optional(),
    sourceWorkspace: z.string().max(4096).optional(),
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
  providerResume: HeadResumeSchema.nullable(),
  packets: z.array(z.object({ relPath: z.string(), packet: z.unknown() })),
  agents: z.array(z.custom<AgentView>()),
  /** How many entry lines follow (formats 2 and 3). */
  transcriptEntries: z.number().int().nonnegative().optional(),
  /** The first format's tail, in the head itself. */
  transcriptTail: z.array(TranscriptEntrySchema).optional(),
  /** Carried work (format 4 only). */
  carry: HeadCarry.optional(),
});
export type CheckpointHead = z.infer<typeof HeadSchema>;

/** One carried repository: its capsule, the bundle a file (the source's scratch, the target's staging). */
export interface CarriedRepo {
  relPath: string;
  base: string;
  head: string;
  indexTree: string;
  workTree: string;
  bundle: { path: string; size: number };
}

/** What a checkpoint carries of the workspace's uncommitted work and unpushed commits. */
export interface CheckpointCarry {
  repos: CarriedRepo[];
  counts: HeadCarry['counts'];
  keptAs: string;
}

/** A checkpoint as built on the source and as read on the target (its files then in the staging folder). */
export interface Checkpoint {
  format: typeof CHECKPOINT_FORMAT | typeof CARRY_FORMAT;
  sessionId: string;
  handoffId: string;
  createdAt: number;
  sourceDeviceId: string;
  sourceDeviceName: string | null;
  meta: {
    title: string;
    provider: string;
    prompt: string;
    permission?: PermissionLevel;
    providerVersion?: string | null;
    permissionRules?: PermissionRule[];
    continueWith?: ProviderId;
    sourcePlatform?: string;
    sourceWorkspace?: string;
  };
  repos: PinnedRepo[];
  /** The provider's export; each of its files is one part of the body. */
  providerResume: ResumeData | null;
  packets: { relPath: string; packet: unknown }[];
  agents: AgentView[];
  /** Every transcript entry the source had, in its order: kept on disk, read as it is written or merged. */
  transcript: CheckpointTranscript;
  /** Carried work (Carry my changes), each capsule's bundle one part after the provider's files; absent: none. */
  carry?: CheckpointCarry;
}

/** Lower-case hex SHA-256 of `bytes`: the content address of a sealed envelope. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * About how many bytes the body of a checkpoint holding `transcriptBytes` of entry lines and
 * provider files of `fileBytes` takes sealed: the head is bounded (packets and agent map) and
 * counted generously.
 */
export function estimateSealedBytes(transcriptBytes: number, fileBytes: number, files: number): number {
  const HEAD_ALLOWANCE = 256 * 1024;
  return HEAD_ALLOWANCE + transcriptBytes + fileBytes + files * PART_LENGTH_BYTES + 35;
}
