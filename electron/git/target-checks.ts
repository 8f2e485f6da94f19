/**
 * Target-side and session-side readiness: is the chosen device enrolled, reachable, able to open
 * every repository, equipped with the provider and holding the key version; is the caller the owner
 * and is no other handoff running. Pure: the device record, capabilities and clock are inputs.
 */
import type { DeviceStatus } from '../../shared/api/devices.ts';
import { isProviderId, PROVIDER_LABELS } from '../../shared/provider.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import { normalizeRemote } from './remote-url.ts';
import { counted } from '../../shared/plural.ts';

/** A provider's label ("Claude Code"), or its id when unknown. */
function providerName(id: string): string {
  return isProviderId(id) ? PROVIDER_LABELS[id] : id;
}

/** A device with no heartbeat for this long is offline. */
export const TARGET_OFFLINE_AFTER_MS = 15_000;

/** The backend's device record, as far as these checks read it. */
export interface TargetDeviceRecord {
  id: string;
  name: string;
  status: DeviceStatus;
  lastSeenAt: number | null;
  /** ADK versions the device holds (clear on the device record). */
  keyVersions: number[];
}

/** What the device published (sealed) with its heartbeat. */
export interface TargetCapabilities {
  providers: string[];
  /** Whether git runs on the device. */
  git: boolean;
  /** Remote URLs of the clones it holds. */
  remotes: string[];
  keyVersions?: number[];
  /** Whether it may clone repositories it lacks under its workspace root; defaults to `git`. */
  canClone?: boolean;
}

export interface TargetCheckInput {
  /** The target's record; null when the account has no such device. */
  device: TargetDeviceRecord | null;
  /** Its unsealed capabilities; null when none were published or they could not be read. */
  capabilities: TargetCapabilities | null;
  requiredProvider: string;
  requiredKeyVersion: number;
  /** The session's repositories (their remotes). */
  repos: { remoteUrl: string | null; relPath?: string }[];
  /** Reachability when the caller computed it; otherwise it is derived from `lastSeenAt` and `now`. */
  online?: boolean;
  now?: number;
  offlineAfterMs?: number;
  /** False when the caller's device does not own the session. */
  isOwner?: boolean;
  /** True when the session already has an active handoff. */
  handoffActive?: boolean;
}

function sessionBlockers(input: TargetCheckInput): Blocker[] {
  const blockers: Blocker[] = [];
  if (input.isOwner === false) {
    blockers.push({
      code: 'not_owner',
      message: 'This device does not own the session, so it cannot move it.',
      fix: 'Start the move from the device that owns the session.',
    });
  }
  if (input.handoffActive === true) {
    blockers.push({
      code: 'handoff_in_progress',
      message: 'Another move of this session is already in progress.',
      fix: 'Wait for it to finish, or cancel it, then try again.',
    });
  }
  return blockers;
}

function isOnline(input: TargetCheckInput, device: TargetDeviceRecord): boolean {
  if (input.online !== undefined) return input.online;
  if (device.lastSeenAt === null || input.now === undefined) return false;
  return input.now - device.lastSeenAt <= (input.offlineAfterMs ?? TARGET_OFFLINE_AFTER_MS);
}

function workspaceBlocker(input: TargetCheckInput, name: string): Blocker | null {
  const caps = input.capabilities;
  const known = new Set((caps?.remotes ?? []).map((r) => normalizeRemote(r)).filter((k) => k !== null));
  const canClone = caps !== null && (caps.canClone ?? caps.git);
  const missing = input.repos.filter((repo) => {
    if (caps === null || !caps.git) return true;
    const key = repo.remoteUrl === null ? null : normalizeRemote(repo.remoteUrl);
    return key === null || (!known.has(key) && !canClone);
  });
  if (missing.length === 0) return null;
  const why =
    caps === null
      ? `${name} has not published what it can open yet.`
      : !caps.git
        ? `${name} cannot run git, so it cannot open the workspace.`
        : `${name} cannot open ${missing.length === 1 ? 'one repository' : counted(missing.length, 'repository', 'repositories')} of the workspace.`;
  const noRemote = missing.some((r) => r.remoteUrl === null);
  return {
    code: 'target_cannot_open_workspace',
    message: why,
    fix: noRemote
      ? 'Give every repository of the workspace a remote (git remote add origin <url>) and push it.'
      : `Clone the workspace's repositories on ${name}, or install git there, then check again.`,
    details: { repos: missing.map((r) => r.relPath ?? r.remoteUrl) },
  };
}

/** Every target- and session-side blocker for moving a session to `input.device` (empty when eligible). */
export function checkTarget(input: TargetCheckInput): Blocker[] {
  const blockers = sessionBlockers(input);
  const device = input.device;
  if (device === null || device.status !== 'enrolled') {
    const state = device === null ? 'is not part of this account' : `is ${device.status === 'revoked' ? 'revoked' : 'not enrolled yet'}`;
    blockers.push({
      code: 'target_not_enrolled',
      message: `${device?.name ?? 'That device'} ${state}.`,
      fix: 'Add the device to the account with an invite from an enrolled device, then pick it again.',
    });
    return blockers;
  }
  const name = device.name;
  if (!isOnline(input, device)) {
    blockers.push({
      code: 'target_offline',
      message: `${name} has not been seen in the last ${Math.round((input.offlineAfterMs ?? TARGET_OFFLINE_AFTER_MS) / 1000)} seconds.`,
      fix: `Start Baton on ${name} and make sure it can reach the sync backend.`,
      details: { lastSeenAt: device.lastSeenAt },
    });
  }
  const workspace = workspaceBlocker(input, name);
  if (workspace) blockers.push(workspace);
  if (!(input.capabilities?.providers ?? []).includes(input.requiredProvider)) {
    blockers.push({
      code: 'target_missing_provider',
      message: `${name} does not have ${providerName(input.requiredProvider)}, which this session runs on.`,
      fix: `Install ${providerName(input.requiredProvider)} on ${name} and restart Baton there.`,
      details: { provider: input.requiredProvider },
    });
  }
  const held = new Set([...device.keyVersions, ...(input.capabilities?.keyVersions ?? [])]);
  if (!held.has(input.requiredKeyVersion)) {
    blockers.push({
      code: 'target_missing_key_version',
      message: `${name} does not hold account key version ${input.requiredKeyVersion} yet.`,
      fix: `Open Baton on an enrolled device so it shares key version ${input.requiredKeyVersion} with ${name}, then check again.`,
      details: { keyVersion: input.requiredKeyVersion },
    });
  }
  return blockers;
}

/** One report of the source report and further blockers (target and session checks); ready only when none. */
export function combineReports(source: ReadinessReport, ...more: Blocker[][]): ReadinessReport {
  const blockers = [...source.blockers, ...more.flat()];
  return { ready: blockers.length === 0, blockers, repos: source.repos, evaluatedAt: source.evaluatedAt };
}
