/**
 * The hosted backend in a child process of its own: the desktop app's shell imports nothing of
 * backend/, so it runs the backend it hosts as this child (built beside its main bundle as
 * `backend-host.js`, started with Electron's utilityProcess; plain Node's `fork` works the same). The
 * device sends `start` and `stop` (shared/hosting.ts) and hears `started`, `failed` and `stopped`. The
 * child stops the backend and exits when told to stop, or when the device goes away.
 */
import { HostingCommand, type HostingReply } from '../../shared/hosting.ts';
import { startHostedBackend, type HostedBackend } from './hosted-backend.ts';

/** The channel to the device: Electron's parentPort in a utility process, else Node's IPC channel. */
interface ParentChannel {
  send(reply: HostingReply): void;
  onMessage(listener: (message: unknown) => void): void;
  onGone(listener: () => void): void;
}

function parentChannel(): ParentChannel | null {
  const port = (process as unknown as { parentPort?: NodeJS.EventEmitter & { postMessage(message: unknown): void } }).parentPort;
  if (port) {
    return {
      send: (reply) => port.postMessage(reply),
      onMessage: (listener) => port.on('message', (event: { data: unknown }) => listener(event.data)),
      onGone: (listener) => port.on('close', listener),
    };
  }
  if (!process.send) return null;
  return {
    send: (reply) => process.send!(reply),
    onMessage: (listener) => process.on('message', listener),
    onGone: (listener) => process.on('disconnect', listener),
  };
}

/** Serves the device over `channel` until it says stop or goes away. */
export function serveHostingChild(channel: ParentChannel, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): void {
  let running: HostedBackend | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const exit = (code: number) =>
    void (queue = queue.then(async () => {
      await running?.close();
      running = null;
      process.exit(code);
    }));
  channel.onGone(() => exit(0));
  channel.onMessage((message) => {
    const command = HostingCommand.safeParse(message);
    if (!command.success) return;
    queue = queue.then(async () => {
      await running?.close();
      running = null;
      if (command.data.op === 'stop') {
        channel.send({ op: 'stopped' });
        return;
      }
      const started = await startHostedBackend({ ...command.data.request, log });
      if (!started.ok) return channel.send({ op: 'failed', code: started.code, message: started.message });
      running = started.value;
      channel.send({ op: 'started', started: { port: started.value.port, fingerprint: started.value.fingerprint } });
    });
  });
}

const channel = parentChannel();
if (channel) serveHostingChild(channel);
