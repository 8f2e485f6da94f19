/**
 * Whether a session's checkpoint fits the sync backend, judged before anything moves: its sealed
 * size is estimated from the transcript log and the provider export's files (their sizes on disk,
 * nothing read) and held against the largest blob the backend publishes. A Move over the limit is
 * refused at readiness with a sentence and a fix, instead of failing at the upload.
 */
import type { ResumeData } from '../../shared/provider.ts';
import type { Blocker } from '../../shared/readiness.ts';
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { SessionsPort } from '../ports/sessions.ts';
import { estimateSealedBytes } from './checkpoint.ts';
import { currentFiles } from './resume-files.ts';

const MiB = 1024 * 1024;

export interface CheckpointSizeDeps {
  state: Pick<LocalState, 'transcriptBytes'>;
  sessions: Pick<SessionsPort, 'provider'>;
  backend: Pick<BackendPort, 'blobLimit'>;
}

/** The export a checkpoint of the session would carry now: the running provider's, else the one kept. */
async function currentExport(deps: CheckpointSizeDeps, session: Readonly<LocalSession>): Promise<ResumeData | null> {
  const provider = deps.sessions.provider(session.id);
  if (provider?.capabilities.checkpointImport) {
    const exported = await provider.exportResumeData();
    if (exported.ok) return exported.value;
  }
  return currentFiles(session.providerResume as ResumeData | null, () => undefined);
}

/** About how many bytes the session's checkpoint takes sealed, were it built now. */
export async function estimateCheckpointBytes(deps: CheckpointSizeDeps, session: Readonly<LocalSession>): Promise<number> {
  const exported = await currentExport(deps, session);
  const files = exported?.files ?? [];
  const inline = exported && !exported.files ? JSON.stringify(exported.payload ?? null).length : 0;
  return estimateSealedBytes(
    deps.state.transcriptBytes(session.id) + inline,
    files.reduce((sum, file) => sum + file.size, 0),
    files.length,
  );
}

/**
 * A "checkpoint_too_large" blocker when the estimate (with `carriedBytes` of carried work, when the
 * move carries it) is over the backend's published limit; null when it fits or no limit is known.
 */
export async function checkpointSizeBlocker(
  deps: CheckpointSizeDeps,
  session: Readonly<LocalSession>,
  carriedBytes: number | Promise<number> = 0,
): Promise<Blocker | null> {
  const limit = await deps.backend.blobLimit();
  if (limit === null) return null;
  const estimate = (await estimateCheckpointBytes(deps, session)) + (await carriedBytes);
  if (estimate <= limit) return null;
  const mib = (bytes: number) => `${Math.ceil(bytes / MiB)} MiB`;
  const needed = Math.ceil(estimate / MiB / 256) * 256;
  return {
    code: 'checkpoint_too_large',
    message: `This session's checkpoint would be about ${mib(estimate)} sealed, over the ${mib(limit)} the sync backend takes in one checkpoint.`,
    fix: `Restart the sync backend with a larger limit (baton backend --max-blob-mib ${needed}), or continue the work in a new session.`,
    details: { estimatedBytes: estimate, limitBytes: limit },
  };
}
