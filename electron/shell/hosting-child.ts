/**
 * The child process the desktop app runs the backend it hosts in: the `backend-host.js` bundle beside
 * main (backend/hosting/hosted-backend-child.ts), started with Electron's utilityProcess, which runs it
 * on Electron's own Node, talks to it over a message port and ends it with the app.
 */
import { utilityProcess } from 'electron';
import type { HostingChild } from '../hosting/child-engine.ts';

/** Starts the hosted-backend child from `modulePath` (the built bundle). */
export function utilityHostingChild(modulePath: string): HostingChild {
  const child = utilityProcess.fork(modulePath, [], { serviceName: 'Baton sync backend', stdio: 'inherit' });
  return {
    send: (command) => child.postMessage(command),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.once('exit', () => listener()),
    kill: () => void child.kill(),
  };
}
