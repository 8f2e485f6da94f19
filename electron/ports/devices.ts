/**
 * The account's devices as the device's parts see them: what a device publishes with its heartbeat,
 * the target-side eligibility check (git/target-checks.ts), and what a move request asks of the
 * device directory (runtime/device-directory.ts).
 */
import type { Device } from '../../shared/api/devices.ts';
import type { ProviderId } from '../../shared/provider.ts';
import type { Blocker } from '../../shared/readiness.ts';
import type { RepoRef } from './repo-ref.ts';

/** Target-side eligibility checks (git/target-checks.ts over the device records). */
export interface EligibilityInput {
  /** The target's record; null when the account has no such device. */
  device: Device | null;
  online: boolean;
  capabilities: DeviceCapabilities | null;
  requiredProvider: string;
  requiredKeyVersion: number;
  repos: RepoRef[];
}

/** What a device publishes (sealed) with its heartbeat. */
export interface DeviceCapabilities {
  providers: string[];
  /** The CLI version of each available provider that reports one (e.g. "claude-code": "2.1.332"); absent from older devices. */
  providerVersions?: Record<string, string>;
  git: boolean;
  remotes: string[];
  keyVersions: number[];
  /** How often it heartbeats (absent from older devices): it counts as offline after a few missed. */
  heartbeatMs?: number;
  /** Set on its last heartbeat as it stops (absent while it runs): offline from then on, without waiting. */
  stoppedAt?: number;
}

export type TargetCheck = (input: EligibilityInput) => Blocker[];

/** A session as the eligibility of a target is judged for it: its provider and repositories. */
export interface SessionToPlace {
  provider: string;
  repos: RepoRef[];
}

/** The account's devices as this device knows them (runtime/device-directory.ts): what a move request asks of them. */
export interface DevicesPort {
  /** Replaces the whole list (after a listDevices). */
  replaceAll(devices: Device[]): void;
  /** Whether the whole list was read from the backend within the last `ms`. */
  listedWithin(ms: number): boolean;
  /** The target-side blockers of moving `session` to `targetId` (empty when eligible). */
  targetBlockers(session: SessionToPlace, targetId: string, check: TargetCheck): Blocker[];
  /** The agent `targetId` would continue `session` with, when it lacks the session's own but has another; else null. */
  continuationFor(session: SessionToPlace, targetId: string): ProviderId | null;
  /** The device's name as the account knows it (its id when unknown). */
  nameOf(id: string): string;
}
