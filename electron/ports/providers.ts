/**
 * Providers and handoff packets as the device's parts see them (implemented over providers/ in
 * runtime/adapters/provider-port.ts and over packet/ by packet/checkpoint-packet.ts).
 */
import type { DriftWarning } from '../../shared/api/handoffs.ts';
import type { ProviderView } from '../../shared/device-api.ts';
import type { Result } from '../../shared/errors.ts';
import type {
  ContinuationInput,
  ExistingSession,
  ImportProgress,
  ProviderId,
  ProviderSession,
  ResumeData,
  ResumeOutcome,
  SessionSettings,
} from '../../shared/provider.ts';
import type { RepoRead } from '../packet/checkpoint-packet.ts';
import type { CheckedOutRepo } from './git.ts';

/** Providers (providers/). */
export interface ProviderPort {
  list(): Promise<ProviderView[]>;
  create(id: ProviderId, settings: SessionSettings): ProviderSession;
  /** This machine's own sessions of CLI provider `id` for `workspace` (for adoption), newest first. */
  existing(id: string, workspace: string): Promise<Result<ExistingSession[]>>;
  /**
   * Resumes `session` from a checkpoint: import when possible, else summary continuation.
   * Called only after the checkpoint was unsealed and verified and the workspace pinned.
   */
  resume(
    session: ProviderSession,
    data: ResumeData | null,
    continuation: ContinuationInput,
    workspace: string,
    /** Why import is not even tried (e.g. this CLI is older than the one that wrote the session): summary, with this reason. */
    importRefused?: string,
    /** Hears how far the import got through the export's files (bytes done of the total). */
    progress?: ImportProgress,
    /** A fork: imported under a new CLI session id, the one it came from untouched. */
    fork?: boolean,
  ): Promise<Result<ResumeOutcome>>;
}

/** What the caller already read of a repository, so a packet's git facts are not read twice. */
export type KnownRepoFacts = RepoRead;

/** Per-branch handoff packets (packet/). */
export interface PacketPort {
  build(
    repoPath: string,
    prose: { goal: string; currentState: string; nextAction: string },
    provider: string,
    known?: KnownRepoFacts,
  ): Promise<unknown>;
  /** Drift of `packet` against the repository; `checkedOut`: what the pin just verified of it (not read again). */
  drift(packet: unknown, repoPath: string, checkedOut?: CheckedOutRepo): Promise<DriftWarning[]>;
}
