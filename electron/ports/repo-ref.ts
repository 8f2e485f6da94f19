/**
 * A repository of a session workspace by its place, remote and branch: what the local session
 * record (local-state/), the sealed session metadata (runtime/) and the git port all name a
 * repository by.
 */
import { z } from 'zod';
import { redactUrl } from '../../shared/url-credentials.ts';

/** A repository of a session workspace as the owner last recorded it. */
export const RepoRef = z.object({
  /** Path relative to the workspace (`.` for a single-repo workspace). */
  relPath: z.string(),
  /** Its remote, credentials redacted (a record written before redaction is redacted as it is read). */
  remoteUrl: z.string().nullable().transform(redactUrl),
  branch: z.string().nullable(),
});
export type RepoRef = z.infer<typeof RepoRef>;
