/**
 * The hosting engine of `baton device` (and so `npm start`): the backend the device hosts runs in the
 * device's own process (backend/hosting/hosted-backend.ts), and stops with it.
 */
import type { HostedBackend } from '../backend/hosting/hosted-backend.ts';
import type { HostingEngine } from '../electron/hosting/hosting-engine.ts';
import { fail, ok } from '../shared/errors.ts';

/** An engine that runs one hosted backend at a time in this process; `log` hears its one-line failure notes. */
export function inProcessHostingEngine(log: (line: string) => void): HostingEngine {
  let running: HostedBackend | null = null;
  return {
    async start(request) {
      await running?.close();
      running = null;
      // Loaded when first hosted: a device that hosts no backend never loads the backend's modules.
      const { startHostedBackend } = await import('../backend/hosting/hosted-backend.ts');
      const started = await startHostedBackend({ ...request, log });
      if (!started.ok) return fail(started.code, started.message);
      running = started.value;
      return ok({ port: started.value.port, fingerprint: started.value.fingerprint });
    },
    async stop() {
      const stopping = running;
      running = null;
      await stopping?.close();
    },
  };
}
