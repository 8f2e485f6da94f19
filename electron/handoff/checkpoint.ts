/**
 * The checkpoint body: the session's continuation state at exact commits. Built on the source,
 * sealed and uploaded; on the target it is parsed (after unseal) before anything is used.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AgentView, TranscriptEntry } from '../../shared/agents.ts';
import type { Result } from '../../shared/errors.ts';
import { PermissionLevel, resumeDataSchema, type ResumeData } from '../../shared/provider.ts';
import type { PinnedRepo } from '../runtime/ports.ts';

export const CHECKPOINT_FORMAT = 'baton-checkpoint/1';

/** How many transcript entries travel in the checkpoint. */
export const TRANSCRIPT_TAIL = 200;

const CheckpointSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
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
  transcriptTail: z.array(z.custom<TranscriptEntry>()),
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
  transcriptTail: TranscriptEntry[];
}

/** Serializes a checkpoint to the bytes that get sealed. */
export function encodeCheckpoint(checkpoint: Checkpoint): Uint8Array {
  return Buffer.from(JSON.stringify({ ...checkpoint, transcriptTail: checkpoint.transcriptTail.slice(-TRANSCRIPT_TAIL) }), 'utf8');
}

/** Parses unsealed bytes; a body for another session or handoff is refused as `checkpoint_rejected`. */
export function decodeCheckpoint(
  bytes: Uint8Array,
  sessionId: string,
  handoffId: string,
): Result<Checkpoint, 'malformed_checkpoint' | 'checkpoint_rejected'> {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return { ok: false, code: 'malformed_checkpoint', message: 'The checkpoint body is not JSON.' };
  }
  const parsed = CheckpointSchema.safeParse(json);
  if (!parsed.success) return { ok: false, code: 'malformed_checkpoint', message: 'The checkpoint body does not have the expected shape.' };
  if (parsed.data.sessionId !== sessionId || parsed.data.handoffId !== handoffId) {
    return { ok: false, code: 'checkpoint_rejected', message: 'The checkpoint belongs to another session or handoff.' };
  }
  return { ok: true, value: parsed.data as Checkpoint };
}

/** Lower-case hex SHA-256 of `bytes`: the content address of a sealed envelope. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
