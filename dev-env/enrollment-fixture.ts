/**
 * Test support for enrollment: a real `baton backend` process, temp profile folders, and helpers
 * that enroll devices through the real flows. Used by the enrollment tests and the invite command test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Result } from '../shared/errors.ts';
import { announcedKey, startBaton, type RunningProcess } from './process-harness.ts';
import { createAccount, type EnrollmentDeps } from '../electron/enrollment/account.ts';
import type { EnrollmentBackend } from '../electron/enrollment/enrollment-backend.ts';
import { approvePendingJoins, createInvite } from '../electron/enrollment/invites.ts';
import { requestJoin } from '../electron/enrollment/join.ts';
import type { Profile } from '../electron/enrollment/profile.ts';
import { syncEnrollmentBackendFactory } from '../electron/enrollment/sync-backend.ts';

export interface EnrollmentWorld {
  backendUrl: string;
  /** The key the backend presents (with `tls`), which the first device pins; else none. */
  backendPins: string[];
  root: string;
  deps: EnrollmentDeps;
  /** A fresh profile folder path (not created). */
  dir(name: string): string;
  backendOf(profile: Profile): EnrollmentBackend;
  close(): Promise<void>;
}

/** Starts a real backend on a temp data folder (over HTTPS with its own key, with `tls`), with a temp root for profiles. */
export async function startEnrollmentWorld(options: { tls?: boolean } = {}): Promise<EnrollmentWorld> {
  const root = mkdtempSync(join(tmpdir(), 'baton-enroll-'));
  let backend: RunningProcess | undefined;
  try {
    const tls = options.tls ? ['--tls', 'self-signed'] : [];
    backend = await startBaton(['backend', '--data', join(root, 'backend'), '--port', '0', ...tls], 'backend: ');
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const running = backend;
  const key = announcedKey(running);
  let n = 0;
  return {
    backendUrl: running.url,
    backendPins: key === null ? [] : [key],
    root,
    deps: { backend: syncEnrollmentBackendFactory },
    dir: (name) => join(root, `${name}-${++n}`),
    backendOf: (profile) => syncEnrollmentBackendFactory(profile.info.backendUrls, profile.identity, profile.info.backendPins),
    async close() {
      await running.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Unwraps a result in a test, failing loudly with its code and message. */
export function must<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.value;
}

/** The first device of a new account (pinning the world's backend key, if it has one). */
export async function firstDevice(world: EnrollmentWorld, name = 'laptop'): Promise<Profile> {
  return must(await createAccount(world.dir(name), [world.backendUrl], name, world.deps, world.backendPins));
}

/** Runs a join with `line` while the inviter approves pending joins, until the join settles. */
export async function joinWhileApproving(
  world: EnrollmentWorld,
  inviter: Profile | null,
  line: string,
  name: string,
  timeoutMs = 15_000,
): Promise<Result<Profile>> {
  let settled = false;
  const joining = requestJoin(world.dir(name), line, name, world.deps, { pollMs: 50, timeoutMs }).finally(() => {
    settled = true;
  });
  while (!settled && inviter !== null) {
    await approvePendingJoins(inviter, world.backendOf(inviter));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return joining;
}

/** A second device enrolled through an invite from `inviter`. */
export async function joinedDevice(world: EnrollmentWorld, inviter: Profile, name = 'desktop'): Promise<Profile> {
  const invite = must(await createInvite(inviter, world.backendOf(inviter)));
  return must(await joinWhileApproving(world, inviter, invite.line, name));
}
