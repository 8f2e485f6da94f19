/**
 * Choosing the resume path on the target: checkpoint import when the provider supports it and the
 * carried data passes its checks, else summary continuation — with the reason, for the handoff record.
 * Call it only after the checkpoint is unsealed and verified: it starts the provider.
 */
import {
  checkResumeData,
  PROVIDER_LABELS,
  type ContinuationInput,
  type ImportOutcome,
  type ImportProgress,
  type ProviderResult,
  type ProviderSession,
  type ResumeData,
  type ResumeOutcome,
} from '../../shared/provider.ts';
import { renderContinuationPrompt } from './continuation-prompt.ts';

export interface ResumeRequest {
  /** The target's workspace, already pinned at the checkpoint's commits. */
  workspace: string;
  /** The provider data the checkpoint carries (null when the source exported none). */
  resumeData: unknown;
  /** What the summary-continuation prompt is rendered from, if import is not possible. */
  continuation: ContinuationInput;
  /** The summary prompt's byte bound (defaults to CONTINUATION_PROMPT_MAX_BYTES). */
  promptMaxBytes?: number;
  /** Why import must not be tried here (e.g. this CLI is older than the one that wrote the session). */
  importRefused?: string;
  /** Hears how far the import got through the export's files. */
  progress?: ImportProgress;
  /** Imported as a fork: under a new CLI session id, the one it came from left as it is. */
  fork?: boolean;
}

/** The data to import, or why import cannot even be tried. */
function importable(session: ProviderSession, resumeData: unknown): { data: ResumeData } | { reason: string } {
  const label = PROVIDER_LABELS[session.provider];
  if (!session.capabilities.checkpointImport) return { reason: `${label} cannot import a session, so it continues from a summary.` };
  if (resumeData === null || resumeData === undefined) return { reason: `The checkpoint carries no ${label} session to import.` };
  const checked = checkResumeData(resumeData);
  if (!checked.ok) return { reason: `The checkpoint's ${label} session data was refused: ${checked.message}` };
  if (checked.value.provider !== session.provider) {
    return { reason: `The checkpoint carries a ${PROVIDER_LABELS[checked.value.provider]} session, not a ${label} one.` };
  }
  return { data: checked.value };
}

/**
 * Resumes `session`: import when possible, else summary continuation. Resolves to the path taken and
 * why; fails only when the provider could not be started at all (summary continuation failed too,
 * or import failed for a reason other than its checks). An import that throws counts as a failed
 * check: resume itself never throws for it.
 */
export async function resumeProvider(session: ProviderSession, request: ResumeRequest): Promise<ProviderResult<ResumeOutcome>> {
  const candidate = request.importRefused ? { reason: request.importRefused } : importable(session, request.resumeData);
  let reason: string;
  if ('data' in candidate) {
    const imported = await session
      .resumeFromImport(candidate.data, request.workspace, request.progress, request.fork)
      .catch((error: unknown): ProviderResult<ImportOutcome | void> => ({
        ok: false,
        code: 'import_check_failed',
        message: `the import failed: ${String(error)}`,
      }));
    const note = imported.ok ? imported.value?.note : undefined;
    if (imported.ok) return { ok: true, value: { path: 'checkpoint-import', ...(note !== undefined && { reason: note }) } };
    if (imported.code !== 'import_check_failed') return imported;
    reason = `Import failed its check, so the session continues from a summary: ${imported.message}`;
  } else {
    reason = candidate.reason;
  }
  const prompt = renderContinuationPrompt(request.continuation, request.promptMaxBytes);
  const started = await session.resumeFromSummary(prompt, request.workspace);
  if (!started.ok) return started;
  return { ok: true, value: { path: 'summary-continuation', reason } };
}
