/**
 * The parts of a session's record that its sealed metadata and event stream carry too, as each is
 * read back: a repository by place, remote and branch (ports/repo-ref.ts) and a blocked move
 * (ports/move-block.ts). Each schema gives exactly the port's shape.
 */
import { z } from 'zod';
import { BlockerSchema } from '../../shared/readiness.ts';
import { redactUrl } from '../../shared/url-credentials.ts';
import type { MoveBlock } from '../ports/move-block.ts';
import type { RepoRef } from '../ports/repo-ref.ts';

/** A repository as recorded; a remote written before redaction is redacted as it is read. */
export const RepoRefSchema = z.object({
  relPath: z.string(),
  remoteUrl: z.string().nullable().transform(redactUrl),
  branch: z.string().nullable(),
}) satisfies z.ZodType<RepoRef>;

/** A blocked move as recorded and as sealed in the event stream. */
export const MoveBlockSchema = z.object({
  targetDeviceId: z.string().max(64),
  blockers: z.array(BlockerSchema).max(50),
  foundBy: z.enum(['readiness', 'checkpoint', 'target']),
  handoffId: z.string().max(64).nullable(),
  at: z.number(),
  generation: z.number().int().nonnegative().default(0),
  askedBy: z.string().max(64).nullable().default(null),
}) satisfies z.ZodType<MoveBlock>;
