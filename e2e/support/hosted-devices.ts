/**
 * Two devices on one machine with no backend run apart: desk creates the account and so hosts its
 * backend (data beside its profile), and the laptop joins with desk's invite (its loopback address:
 * both are on this machine). For the tours of the screens a backend a device hosts brings: real
 * processes in a temporary folder, stopped and removed by `close`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceClient, startBaton, type RunningProcess } from '../../dev-env/process-harness.ts';

export interface HostedDevices {
  desk: RunningProcess;
  laptop: RunningProcess;
  /** Stops desk (and the backend it hosts). */
  stopDesk(): Promise<void>;
  close(): Promise<void>;
}

/** Starts desk hosting the account's backend, and the laptop joined to it. */
export async function startHostedDevices(prefix = 'baton-e2e-hosted-'): Promise<HostedDevices> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, HOME: dir, BATON_HEARTBEAT_MS: '1000' };
  const device = (name: string, extra: string[]) =>
    startBaton(
      ['device', '--profile', join(dir, name), '--name', name, '--workspace-root', join(dir, `${name}-ws`), ...extra],
      'ui: ',
      env,
    );
  const desk = await device('desk', ['--backend-data', join(dir, 'desk-backend'), '--create-account']);
  const client = await DeviceClient.connect(desk.url);
  const { invite } = await client.take('createInvite', {});
  client.close();
  const laptop = await device('laptop', ['--join', invite]);
  let deskRunning = true;
  return {
    desk,
    laptop,
    async stopDesk() {
      deskRunning = false;
      await desk.stop(10_000);
    },
    async close() {
      await laptop.stop(5000);
      if (deskRunning) await desk.stop(5000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
