/**
 * How the target stages a checkpoint's provider files: each through its provider's line rewriter
 * (ProviderSession.stagePart) for the workspace the pin will give, so the import that follows only
 * moves the rewritten files into place. The workspace is looked up read only (GitPort.locate) from the
 * head's repositories: the clones found, or the folders the pin will clone to. Should the pin give
 * another (a folder taken meanwhile), the import moves the files on from there; when the provider has
 * no rewriter, or the lookup fails, the files are staged as they are and the import rewrites them itself. Nothing here is
 * trusted before the envelope's tag checks: the rewriter writes only into the private staging folder.
 */
import { DEFAULT_PERMISSION_LEVEL, isProviderId, type ProviderSession } from '../../shared/provider.ts';
import type { GitPort } from '../ports/git.ts';
import type { ProviderPort } from '../ports/providers.ts';
import type { StagePart } from './checkpoint-reader.ts';
import type { LocalState } from '../local-state/local-state.ts';
import { checkoutPlaces } from './checkout-places.ts';
import type { HandoffConfig } from './handoff-config.ts';

/** A StagePart over the device's git and providers for session `sessionId`; one per checkpoint read (it keeps the workspace it found). */
export function providerStaging(
  deps: {
    selfId: string;
    state: Pick<LocalState, 'readSession' | 'readSessions'>;
    git: Pick<GitPort, 'locate'>;
    providers: Pick<ProviderPort, 'create'>;
    config: Pick<HandoffConfig, 'workspaceRoot'>;
    log?(message: string): void;
  },
  sessionId: string,
): StagePart {
  let workspace: Promise<string | null> | null = null;
  let session: ProviderSession | null = null;
  return async (head, resume, file) => {
    if (!isProviderId(head.meta.provider) || resume.provider !== head.meta.provider) return null;
    // Another agent continues from a summary: this export is never imported here.
    if (head.meta.continueWith !== undefined && head.meta.continueWith !== head.meta.provider) return null;
    workspace ??= deps.git.locate(head.repos, checkoutPlaces(deps, sessionId)).catch(() => null);
    const where = await workspace;
    if (where === null) return null;
    try {
      // Made only to stage: never started (the session that resumes is made once the checkpoint verified).
      session ??= deps.providers.create(resume.provider, { permission: head.meta.permission ?? DEFAULT_PERMISSION_LEVEL });
      const stager = session.stagePart ? await session.stagePart(resume, file, where) : null;
      if (stager) deps.log?.(`staging ${file.name} of ${resume.provider} rewritten for the workspace`);
      return stager;
    } catch {
      return null; // staged as it is: the import rewrites it
    }
  };
}
