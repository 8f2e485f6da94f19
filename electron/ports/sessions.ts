/**
 * This device's sessions as a move sees them: what the handoff steps (handoff/) ask of the session
 * service (runtime/sessions/session-service.ts implements it), and a session's content as the UI
 * and the checkpoint carry it.
 */
import type { AgentView, TranscriptEntry } from '../../shared/agents.ts';
import type { Session } from '../../shared/api/sessions.ts';
import type { InputBlock } from '../../shared/device-api.ts';
import type { ActionResult } from '../../shared/errors.ts';
import type { ProviderSession } from '../../shared/provider.ts';

/** A session as the UI and the checkpoint carry it. */
export interface SessionContent {
  agents: AgentView[];
  transcript: TranscriptEntry[];
}

/** What a move asks of this device's sessions. */
export interface SessionsPort {
  /** The running provider of an owned session, if any. */
  provider(sessionId: string): ProviderSession | undefined;
  /** Attaches a fresh provider session whose events are recorded and appended. */
  attach(sessionId: string, providerId: string): ProviderSession;
  /** Stops and forgets the provider of a session (moved away, or shutting down). */
  detach(sessionId: string): Promise<void>;
  /** Durably sets (or clears) the input-rejection flag of a session. */
  setInputBlock(sessionId: string, block: InputBlock): void;
  /** Durably clears "needs attention" and the input block: the session runs here again. */
  clearAttention(sessionId: string): void;
  /** Stops driving a session this device no longer owns: provider stopped, input refused as moved. */
  markMoved(sessionId: string): Promise<void>;
  /** Resumes every session this device owns that is not running (after a restart, or a cancelled move). */
  resumeOwned(): Promise<void>;
  /** Re-seals and stores the session metadata (owner only, fenced by generation). */
  publishMeta(sessionId: string): Promise<ActionResult>;
  /** Holds the appends of the session's events until `until` settles (a bounded time at most); they are sent after, in order. */
  holdAppends(sessionId: string, until: Promise<unknown>): void;
  /** Keeps the provider's export in local state so a restart of this device can resume the session. */
  saveResumeData(sessionId: string, provider: ProviderSession): Promise<void>;
  /** Applies a backend session record: learns unknown sessions, follows owner and generation. */
  applyRemote(record: Session): Promise<void>;
  /** Adds a Baton note (a system entry of the main agent) to the transcript and appends it (owner only). */
  note(sessionId: string, text: string): void;
  /**
   * Denies the session's pending permission requests because it moves to `targetDeviceId` (the agent
   * reads that, the transcript records it); resolves once the agent has the answers.
   */
  denyPermissionsForMove(sessionId: string, targetDeviceId: string): Promise<void>;
}
