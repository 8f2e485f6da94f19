/**
 * Composes a DeviceRuntime for an enrolled profile from the real parts: A's signed client and push
 * stream, B's key ring and enrollment, C's git, D's packets, E's providers. The headless device
 * command, the demo and the Electron shell all build their runtime here.
 */
import { dirname, join } from 'node:path';
import type { ProviderId } from '../../shared/provider.ts';
import { createInvite, approvePendingJoins } from '../enrollment/invites.ts';
import { refreshKeyRing, revokeDevice, rotateAdk } from '../enrollment/key-distribution.ts';
import type { Profile } from '../enrollment/profile.ts';
import { syncEnrollmentBackend } from '../enrollment/sync-backend.ts';
import { createGitRunner, type GitRunner } from '../git/git-runner.ts';
import { pinWorkspace } from '../git/pinning.ts';
import { prepareCheck } from '../git/prepare-check.ts';
import { commitAll, pushRepo } from '../git/remediation.ts';
import { detectProviders } from '../providers/detect.ts';
import { createProvider, type ProviderOptions } from '../providers/registry.ts';
import { createBackendClient, type BackendClient } from '../sync/backend-client.ts';
import { openPushStream } from '../sync/push-stream.ts';
import type { CoordinatorConfig } from './coordinator.ts';
import { DeviceRuntime, type AccountPort, type RemediationPort } from './device-runtime.ts';
import { LocalState } from './local-state.ts';
import { createCheckpointPacketPort } from '../packet/checkpoint-packet.ts';
import type { GitPort, PinnedRepo } from './ports.ts';
import { profileSeal } from './profile-seal.ts';
import { providerPort } from './provider-port.ts';
import { syncBackend } from './sync-backend.ts';
import { targetCheck } from './target-eligibility.ts';
import { gitAvailable, remotesUnder, workspaceReadiness, workspaceRepos } from './workspace-git.ts';

export interface ComposeOptions {
  profile: Profile;
  backendUrl: string;
  workspaceRoot: string;
  heartbeatMs: number;
  config: Omit<CoordinatorConfig, 'workspaceRoot'>;
  providers?: ProviderOptions;
  log(message: string): void;
}

/** The folder a set of pinned repositories forms: the repo itself, or the parent they share. */
function workspaceOf(paths: string[]): string {
  if (paths.length === 1) return paths[0]!;
  const parents = new Set(paths.map((p) => dirname(p)));
  return parents.size === 1 ? [...parents][0]! : paths[0]!;
}

/** The runtime's git over C's readiness, clone finder and pinning. */
export function gitPort(run: GitRunner): GitPort {
  return {
    available: () => gitAvailable(run),
    repos: (ref) => workspaceRepos(ref, run),
    sourceReadiness: (ref) => workspaceReadiness(ref, run),
    remotesUnder: (root) => remotesUnder(root, run),
    async prepare(repos, workspaceRoot) {
      const prepared = await prepareCheck(repos.map((r) => ({ remote: r.remoteUrl ?? '', branch: r.branch ?? '' })), { run, workspaceRoot });
      if (!prepared.ok) return { ok: false, code: prepared.code, message: `${prepared.message} ${prepared.fix}` };
      return { ok: true, value: { workspace: workspaceRoot } };
    },
    async pin(repos: PinnedRepo[], workspaceRoot) {
      const pinned = await pinWorkspace(repos.map((r) => ({ remote: r.remoteUrl ?? '', branch: r.branch ?? '', commit: r.commit })), { run, workspaceRoot });
      if (!pinned.ok) return { ok: false, code: pinned.code, message: `${pinned.message} ${pinned.fix}` };
      const repoPaths = pinned.value.repos.map((r) => r.path);
      return { ok: true, value: { workspace: workspaceOf(repoPaths), repoPaths } };
    },
  };
}

/** Remediation acts over C's pushRepo / commitAll. */
function remediationPort(run: GitRunner): RemediationPort {
  const plain = (outcome: { result: { ok: true } | { ok: false; code: string; message: string } }) =>
    outcome.result.ok ? { ok: true as const } : { ok: false as const, code: outcome.result.code, message: outcome.result.message };
  return {
    push: async (repo) => plain(await pushRepo(repo, { run })),
    commitAll: async (repo, message) => plain(await commitAll(repo, message, { run })),
  };
}

/** Invites, approvals, key refresh, revocation and rotation over B's enrollment. */
function accountPort(profile: Profile, client: BackendClient, log: (m: string) => void): AccountPort {
  const backend = syncEnrollmentBackend(client);
  return {
    async createInvite() {
      const made = await createInvite(profile, backend);
      if (!made.ok) throw new Error(made.message);
      return { invite: made.value.line, expiresAt: made.value.expiresAt };
    },
    async approvePendingJoins() {
      const decided = await approvePendingJoins(profile, backend);
      if (decided.ok) for (const d of decided.value) log(`join request of ${d.deviceName}: ${d.outcome}${d.reason ? ` (${d.reason})` : ''}`);
    },
    async refreshKeyRing() {
      await refreshKeyRing(profile, backend);
    },
    async revokeDevice(deviceId) {
      const revoked = await revokeDevice(profile, backend, deviceId);
      return revoked.ok ? { ok: true } : { ok: false, code: revoked.code, message: revoked.message };
    },
    async rotateKeys() {
      const rotated = await rotateAdk(profile, backend);
      return rotated.ok ? { ok: true, keyVersion: rotated.value.keyVersion } : { ok: false, code: rotated.code, message: rotated.message };
    },
  };
}

/** Builds the runtime of an enrolled device (not started). */
export function composeDeviceRuntime(options: ComposeOptions): DeviceRuntime {
  const { profile, log } = options;
  const client = createBackendClient({ baseUrl: options.backendUrl, signer: profile.identity });
  const run = createGitRunner();
  const providerOptions = options.providers ?? {};
  const status = {
    enrolled: true, deviceId: profile.identity.deviceId, deviceName: profile.info.name, accountId: profile.info.accountId ?? '',
    backendUrl: options.backendUrl, joining: false,
  };
  return new DeviceRuntime({
    status,
    state: new LocalState(profile.dir),
    backend: syncBackend(client),
    seal: profileSeal(profile),
    git: gitPort(run),
    remediation: remediationPort(run),
    packets: createCheckpointPacketPort(),
    providers: providerPort({
      detect: () => detectProviders({ env: providerOptions.env ?? process.env, commandArgv: providerOptions.command?.argv ?? null }),
      create: (id: ProviderId) => {
        const made = createProvider(id, providerOptions);
        if (!made.ok) throw new Error(made.message);
        return made.value;
      },
    }),
    targetCheck,
    account: accountPort(profile, client, log),
    openStream: (onMessage, onOpen) => {
      const close = openPushStream(client, onMessage, { onOpen, onError: (e) => log(`push stream: ${e.code} ${e.message}`) }, { maxBackoffMs: 2000 });
      return { close };
    },
    clock: Date.now,
    heartbeatMs: options.heartbeatMs,
    config: { ...options.config, workspaceRoot: options.workspaceRoot },
    log,
  });
}

/** Where the built renderer lives (served by the web host). */
export function rendererDir(projectRoot: string): string {
  return join(projectRoot, 'dist', 'renderer');
}
