/**
 * The hosting engine of the desktop app: the backend it hosts runs in a child process of its own
 * (backend/hosting/hosted-backend-child.ts, built as `backend-host.js`), started when a backend is
 * first asked for and told to stop with the device. The shell hands in how to start the child
 * (Electron's utilityProcess); tests hand in Node's fork of the same entry. A child that dies is
 * started again at the next start.
 */
import { fail, ok, type Result } from '../../shared/errors.ts';
import { HostingReply, type HostingCommand, type HostingStarted } from '../../shared/hosting.ts';
import type { HostingEngine } from './hosting-engine.ts';

/** A child process as the engine talks to it. */
export interface HostingChild {
  send(command: HostingCommand): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once the child has exited. */
  onExit(listener: () => void): void;
  kill(): void;
}

/** How long a child may take to stop before it is killed. */
const STOP_WAIT_MS = 10_000;

/** An engine whose backend runs in children made by `spawn`, one at a time. */
export function childHostingEngine(spawn: () => HostingChild): HostingEngine {
  let child: HostingChild | null = null;
  let exited: Promise<void> = Promise.resolve();
  let waiting: ((reply: HostingReply | null) => void) | null = null;

  const current = (): HostingChild => {
    if (child) return child;
    const made = spawn();
    child = made;
    exited = new Promise<void>((resolve) =>
      made.onExit(() => {
        if (child === made) child = null;
        waiting?.(null);
        resolve();
      }),
    );
    made.onMessage((message) => {
      const reply = HostingReply.safeParse(message);
      if (reply.success) waiting?.(reply.data);
    });
    return made;
  };

  const ask = (command: HostingCommand): Promise<HostingReply | null> =>
    new Promise((resolve) => {
      waiting = (reply) => {
        waiting = null;
        resolve(reply);
      };
      current().send(command);
    });

  return {
    async start(request): Promise<Result<HostingStarted>> {
      const reply = await ask({ op: 'start', request });
      if (reply === null)
        return fail('hosted_backend_unusable', 'The process that runs the sync backend on this device stopped before it started.');
      if (reply.op === 'started') return ok(reply.started);
      if (reply.op === 'failed') return fail(reply.code, reply.message);
      return fail('hosted_backend_unusable', 'The sync backend on this device did not start.');
    },
    async stop() {
      const running = child;
      if (!running) return;
      await ask({ op: 'stop' });
      running.kill();
      const killer = setTimeout(() => running.kill(), STOP_WAIT_MS);
      await exited;
      clearTimeout(killer);
    },
  };
}
