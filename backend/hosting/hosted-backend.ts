/**
 * The backend a device hosts for its account: the embedded store in a data folder beside the
 * device's profile, always over HTTPS with a key it makes once and keeps there (the hosting device
 * pins it from the start, and every device it invites after). It listens on this machine only
 * (127.0.0.1) until the person lets other machines reach it; then on every address of the machine
 * (IPv6 and IPv4 where the system allows both). A device hosts it in its own process (`baton device`,
 * `npm start`) or in a child process (the desktop app: hosted-backend-child.ts), and stops it with itself.
 */
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { HostingRequest } from '../../shared/hosting.ts';
import { startBackend, type RunningBackend } from '../backend.ts';
import { openStorage } from '../storage.ts';
import { newTlsKey, selfSignedIdentity } from '../tls/tls-identity.ts';

/** A hosting request (shared/hosting.ts), and where one-line failure notes go. */
export type HostedBackendRequest = HostingRequest & { log?(line: string): void };

export interface HostedBackend {
  /** The port it listens on. */
  port: number;
  /** The fingerprint of its key, which devices pin. */
  fingerprint: string;
  close(): Promise<void>;
}

export type HostedBackendCode = 'port_in_use' | 'hosted_backend_unusable';

/** The addresses a backend listens on: one loopback address, or every address (IPv6 with IPv4, else IPv4 alone). */
function listenHosts(shared: boolean): string[] {
  return shared ? ['::', '0.0.0.0'] : ['127.0.0.1'];
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Starts the hosted backend of `request`; resolves once it serves, or with why not in one sentence
 * (the port another program holds, a data folder that cannot be used).
 */
export async function startHostedBackend(request: HostedBackendRequest): Promise<Result<HostedBackend, HostedBackendCode>> {
  const opened = await openStorage({ dataDir: request.dataDir }, { log: request.log });
  if (!opened.ok) return fail('hosted_backend_unusable', `The sync backend's data in ${request.dataDir} cannot be used: ${opened.message}`);
  const storage = opened.value;
  let running: RunningBackend | null = null;
  try {
    const key = await storage.keepTlsKey(newTlsKey);
    const tls = await selfSignedIdentity(key, ['127.0.0.1', '::1', ...request.names]);
    const ports = request.portFixed || request.port === 0 ? [request.port] : [request.port, 0];
    let lastError: unknown = null;
    for (const port of ports) {
      for (const host of listenHosts(request.shared)) {
        try {
          running = await startBackend({ storage, host, port, tls, ...(request.log ? { log: request.log } : {}) });
          break;
        } catch (error) {
          lastError = error;
          // No IPv6 on this machine: every IPv4 address instead. A taken port: the next port, if any.
          if (code(error) !== 'EAFNOSUPPORT' && code(error) !== 'EADDRNOTAVAIL') break;
        }
      }
      if (running) break;
    }
    if (!running) {
      await storage.close();
      if (code(lastError) === 'EADDRINUSE')
        return fail('port_in_use', `Port ${request.port}, which the sync backend on this device keeps, is in use by another program.`);
      return fail('hosted_backend_unusable', `The sync backend could not listen on port ${request.port}: ${(lastError as Error).message}`);
    }
  } catch (error) {
    await storage.close();
    return fail('hosted_backend_unusable', `The sync backend could not start: ${(error as Error).message}`);
  }
  const backend = running;
  return ok({ port: backend.port, fingerprint: backend.fingerprint!, close: () => backend.close() });
}
