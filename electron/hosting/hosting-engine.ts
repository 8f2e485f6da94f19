/**
 * What runs the backend a device hosts: the device asks it to start one (shared/hosting.ts) and to
 * stop it. `baton device` runs it in its own process (cli/hosted-engine.ts); the desktop app in a
 * child process of its own (child-engine.ts), since its shell imports nothing of backend/.
 */
import type { Result } from '../../shared/errors.ts';
import type { HostingRequest, HostingStarted } from '../../shared/hosting.ts';

export interface HostingEngine {
  /** Starts the backend; resolves once it serves, or with why not in one sentence. At most one runs at a time. */
  start(request: HostingRequest): Promise<Result<HostingStarted>>;
  /** Stops the one running (nothing when none runs); resolves once it stopped. */
  stop(): Promise<void>;
}
