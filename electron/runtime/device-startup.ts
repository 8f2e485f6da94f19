/**
 * Bringing a device profile to "enrolled" at startup: reuse an enrolled profile, create the
 * account when asked, join with an invite when asked (resuming a pending join), else refuse.
 */
import type { Result } from '../../shared/errors.ts';
import { createAccount, type EnrollmentDeps } from '../enrollment/account.ts';
import { requestJoin } from '../enrollment/join.ts';
import { loadProfile, setBackendPins, type Profile } from '../enrollment/profile.ts';

export interface StartupRequest {
  profileDir: string;
  /** The addresses given (null: none; then a join uses the invite's, and creating an account is refused). */
  backendUrls: string[] | null;
  /** The backend keys given (null: none; then a join uses the invite's, an enrolled profile keeps its own). */
  backendPins?: string[] | null;
  name: string;
  createAccount: boolean;
  /** The invite line, when the device should join an account. */
  join: string | null;
  signal?: AbortSignal;
}

/** Resolves to an enrolled profile, or to why the device cannot start. */
export async function enrollAtStartup(request: StartupRequest, deps: EnrollmentDeps): Promise<Result<Profile>> {
  const loaded = loadProfile(request.profileDir);
  const pins = request.backendPins ?? null;
  if (loaded.ok && loaded.value.info.status === 'enrolled') {
    // Pins given on the command line replace the kept ones, as addresses do (a re-pin without the UI).
    if (pins) setBackendPins(loaded.value, pins);
    return { ok: true, value: loaded.value };
  }
  if (!loaded.ok && loaded.code === 'profile_corrupt') return loaded;
  if (request.createAccount) {
    if (request.backendUrls === null) return { ok: false, code: 'no_backend', message: 'creating an account needs the backend address' };
    return createAccount(request.profileDir, request.backendUrls, request.name, deps, pins ?? []);
  }
  if (request.join !== null) {
    return requestJoin(request.profileDir, request.join, request.name, deps, {
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.backendUrls ? { backendUrls: request.backendUrls } : {}),
      ...(pins ? { backendPins: pins } : {}),
    });
  }
  const status = loaded.ok ? loaded.value.info.status : 'new';
  return {
    ok: false,
    code: 'not_enrolled',
    message: `the device profile in ${request.profileDir} is ${status === 'new' ? 'not enrolled' : status}; start it with --create-account or --join INVITE`,
  };
}
