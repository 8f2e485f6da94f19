/**
 * A repository of a session workspace by its place, remote and branch: what the local session
 * record (local-state/), the sealed session metadata (runtime/) and the git port all name a
 * repository by. Its schema: local-state/record-parts.ts.
 */

/** A repository of a session workspace as the owner last recorded it. */
export interface RepoRef {
  /** Path relative to the workspace (`.` for a single-repo workspace). */
  relPath: string;
  /** Its remote, credentials redacted (a record written before redaction is redacted as it is read). */
  remoteUrl: string | null;
  branch: string | null;
}
