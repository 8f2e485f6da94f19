/** The runtime's ProviderPort over the providers (providers/): detection, creation and the resume-path choice. */
import type { ProviderView } from '../../../shared/device-api.ts';
import { ok, type Result } from '../../../shared/errors.ts';
import type { ExistingSession, ProviderId, ProviderSession, SessionSettings } from '../../../shared/provider.ts';
import { resumeProvider } from '../../providers/resume.ts';
import type { ProviderPort } from '../../ports/providers.ts';

export interface ProviderPortOptions {
  /** Which providers this device has (cached after the first call for `cacheMs`). */
  detect(): Promise<ProviderView[]>;
  /** Makes a new, not yet started provider session. */
  create(id: ProviderId, settings: SessionSettings): ProviderSession;
  /** Lists this machine's own sessions of a CLI provider for a workspace (default: none to adopt). */
  existing?(id: string, workspace: string): Promise<Result<ExistingSession[]>>;
  cacheMs?: number;
}

/** Builds the port; detection is cached briefly since heartbeats ask often. */
export function providerPort(options: ProviderPortOptions): ProviderPort {
  let cached: { at: number; views: Promise<ProviderView[]> } | null = null;
  const cacheMs = options.cacheMs ?? 60_000;
  return {
    list() {
      if (cached === null || Date.now() - cached.at > cacheMs) cached = { at: Date.now(), views: options.detect() };
      return cached.views;
    },
    create: (id, settings) => options.create(id, settings),
    existing: (id, workspace) => (options.existing ? options.existing(id, workspace) : Promise.resolve(ok([]))),
    async resume(session, data, continuation, workspace, importRefused, progress, fork) {
      const resumed = await resumeProvider(session, { workspace, resumeData: data, continuation, importRefused, progress, fork });
      return resumed.ok ? resumed : { ok: false, code: resumed.code, message: resumed.message };
    },
  };
}
