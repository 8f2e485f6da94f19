/**
 * The desktop app's hosting engine, its backend in a child process: the child entry the shell builds
 * (backend/hosting/hosted-backend-child.ts), forked with Node here as the shell starts it with
 * Electron's utilityProcess. It serves once started, stops (and exits) when told, starts afresh after,
 * says why it did not start, and exits when the device goes away.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, waitFor } from '../../dev-env/process-harness.ts';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { BackendTrust } from '../sync/backend-trust.ts';
import { childHostingEngine, type HostingChild } from './child-engine.ts';

const ENTRY = join(PROJECT_ROOT, 'backend', 'hosting', 'hosted-backend-child.ts');
const folder = tempFolders('baton-child-engine-');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Forks the child entry as the shell's utilityProcess would start it. */
function spawnChild(): HostingChild {
  const child = fork(ENTRY, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.push(child);
  return {
    send: (command) => child.send(command),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.once('exit', () => listener()),
    kill: () => child.kill(),
  };
}

async function answers(url: string, pin: string): Promise<boolean> {
  const signer = { deviceId: 'probe', sign: () => new Uint8Array(64) };
  return (await createBackendClient({ baseUrl: url, signer, trust: new BackendTrust([pin]), attempts: 1, timeoutMs: 3000 }).call('health'))
    .ok;
}

const request = (dataDir: string, port = 0) => ({ dataDir, port, portFixed: false, shared: false, names: [] });

describe('the hosted backend in a child process', () => {
  it('serves once started, and stops with its process when told', async () => {
    const engine = childHostingEngine(spawnChild);
    const dir = folder();
    const started = await engine.start(request(dir));
    if (!started.ok) throw new Error(started.message);
    const url = `https://127.0.0.1:${started.value.port}`;
    expect(await answers(url, started.value.fingerprint)).toBe(true);
    await engine.stop();
    expect(children[0]!.exitCode ?? children[0]!.signalCode).not.toBeNull();
    expect(await answers(url, started.value.fingerprint)).toBe(false);
    // Started again: a new child, the same folder's key.
    const again = await engine.start(request(dir, started.value.port));
    expect(again).toEqual({ ok: true, value: started.value });
    expect(children).toHaveLength(2);
    await engine.stop();
  });

  it('says why when the backend could not start', async () => {
    const squatter = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => squatter.once('listening', resolve));
    try {
      const port = (squatter.address() as { port: number }).port;
      const engine = childHostingEngine(spawnChild);
      const started = await engine.start({ ...request(folder(), port), portFixed: true });
      expect(started).toEqual({
        ok: false,
        code: 'port_in_use',
        message: `Port ${port}, which the sync backend on this device keeps, is in use by another program.`,
      });
      await engine.stop();
    } finally {
      squatter.close();
    }
  });

  it('exits when the device goes away', async () => {
    const engine = childHostingEngine(spawnChild);
    expect((await engine.start(request(folder()))).ok).toBe(true);
    const child = children[0]!;
    child.disconnect();
    await waitFor('the child to exit', async () => (child.exitCode !== null ? true : undefined), 10_000);
    expect(child.exitCode).toBe(0);
  });
});
