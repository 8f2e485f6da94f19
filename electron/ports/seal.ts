/** Sealing under the account data key, as the device's parts see it (crypto/envelope.ts, crypto/envelope-stream.ts). */
import type { Result } from '../../shared/errors.ts';
import type { StreamOpener, StreamSealer } from '../crypto/envelope-stream.ts';

/** What a sealed JSON payload is bound to (the additional data of its envelope). */
export type SealContext =
  | { kind: 'session-meta'; sessionId: string }
  | { kind: 'session-event'; sessionId: string }
  | { kind: 'permission-answer'; sessionId: string }
  | { kind: 'move-here-request'; sessionId: string }
  | { kind: 'capabilities'; deviceId: string }
  | { kind: 'handoff-outcome'; sessionId: string; handoffId: string }
  | { kind: 'handoff-reason'; sessionId: string; handoffId: string }
  | { kind: 'handoff-commits'; sessionId: string; handoffId: string };

export type UnsealFailureCode = 'checkpoint_rejected' | 'key_version_missing' | 'malformed_envelope' | 'unsupported_format';

/** Sealing under the account data key (implemented over the profile's key ring in runtime/adapters/seal-port.ts). */
export interface SealPort {
  readonly accountId: string;
  /** ADK versions this device holds. */
  keyVersions(): number[];
  sealJson(value: unknown, context: SealContext): string;
  openJson(sealed: string, context: SealContext): Result<unknown, UnsealFailureCode>;
  /**
   * Starts sealing a checkpoint body, chunk by chunk, bound to (account, session, handoff, key
   * version): `keyVersion` when given (the one the handoff carries), else the newest.
   */
  startCheckpointSeal(sessionId: string, handoffId: string, keyVersion?: number): StreamSealer;
  /**
   * Starts opening a checkpoint envelope of `size` bytes chunk by chunk; its plaintext is
   * unauthenticated until the opener's `final()` answers ok.
   */
  startCheckpointOpen(sessionId: string, handoffId: string, size: number): StreamOpener;
}
