/**
 * Test support: a device's SessionService over the real parts — the signed backend client of an
 * enrolled profile, its key ring, git in a sandbox env and a LocalState folder — with the providers
 * the test gives, and the reader of what other devices post to its sessions (permission answers;
 * it takes no Move here). For runtime tests that need sessions without a whole device process.
 */
import type { Profile } from '../electron/enrollment/profile.ts';
import { createGitRunner } from '../electron/git/git-runner.ts';
import { LocalState } from '../electron/local-state/local-state.ts';
import { backendPort } from '../electron/runtime/adapters/backend-port.ts';
import { DeviceDirectory } from '../electron/runtime/device-directory.ts';
import { gitPort } from '../electron/runtime/adapters/git-port.ts';
import { profileSeal } from '../electron/runtime/adapters/seal-port.ts';
import type { ProviderPort } from '../electron/ports/providers.ts';
import { SessionPosts } from '../electron/runtime/session-posts.ts';
import { SessionService } from '../electron/runtime/sessions/session-service.ts';
import { createBackendClient, type BackendClient } from '../electron/sync/backend-client.ts';

export interface SessionServiceParts {
  sessions: SessionService;
  /** Reads what other devices posted to an owned session (a push would have it read). */
  posts: SessionPosts;
  state: LocalState;
  client: BackendClient;
  /** The account's devices as this service knows them (refresh() reads them; relayed answers are checked against them). */
  devices: DeviceDirectory;
  /** Reads the account's devices from the backend. */
  refreshDevices(): Promise<void>;
}

/** A session service of `profile` on the backend at `backendUrl`, keeping its records in `stateDir`. */
export function sessionServiceOf(
  profile: Profile,
  options: { backendUrl: string; stateDir: string; gitEnv: NodeJS.ProcessEnv; providers: ProviderPort; log?: (line: string) => void },
): SessionServiceParts {
  const state = new LocalState(options.stateDir);
  const client = createBackendClient({ baseUrl: options.backendUrl, signer: profile.identity });
  const seal = profileSeal(profile);
  const backend = backendPort(client);
  const devices = new DeviceDirectory(profile.identity.deviceId, seal, Date.now);
  const sessions = new SessionService({
    selfId: profile.identity.deviceId,
    selfName: profile.info.name,
    state,
    backend,
    seal,
    git: gitPort(createGitRunner({ env: options.gitEnv })),
    clock: Date.now,
    changes: { emit: () => undefined },
    log: options.log ?? (() => undefined),
    providers: options.providers,
    signer: profile.identity,
    devices,
  });
  const handlers = { 'permission-answer': sessions.answers, 'move-here-request': { take: async () => undefined } };
  const posts = new SessionPosts({ selfId: profile.identity.deviceId, state, backend, seal, handlers });
  const refreshDevices = async () => {
    await devices.refresh(backend);
  };
  return { sessions, posts, state, client, devices, refreshDevices };
}
