/**
 * A backend and devices with no account (the set-up screen), for the tours and specs that need a
 * first run: real processes in a temporary folder, stopped and removed by `close`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBaton, type RunningProcess } from '../../dev-env/process-harness.ts';

export interface FreshDevices {
  backend: RunningProcess;
  /** One device process per name asked for, in that order. */
  devices: RunningProcess[];
  close(): Promise<void>;
}

/** Starts a backend and one device for each of `names`, none of them enrolled yet. */
export async function startFreshDevices(names: string[], prefix = 'baton-e2e-fresh-'): Promise<FreshDevices> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, HOME: dir };
  const backend = await startBaton(['backend', '--data', join(dir, 'backend'), '--port', '0'], 'backend: ', env);
  const devices: RunningProcess[] = [];
  for (const name of names) {
    const args = [
      'device',
      '--profile',
      join(dir, name),
      '--backend',
      backend.url,
      '--name',
      name,
      '--workspace-root',
      join(dir, `${name}-ws`),
    ];
    devices.push(await startBaton(args, 'ui: ', env));
  }
  return {
    backend,
    devices,
    async close() {
      for (const device of devices) await device.stop(5000);
      await backend.stop(5000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
