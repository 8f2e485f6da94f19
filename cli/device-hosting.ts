/**
 * How `baton device` hosts its account's backend (electron/hosting/): in its own process, its data
 * in `--backend-data` (default: the profile's `backend/` folder). And, once, for a profile `npm start`
 * made before devices hosted their backend: `npm start` then ran `baton backend` on
 * http://127.0.0.1:8787 with its data in BATON_HOME/backend, and the profile used that address. Such
 * a profile is taken as hosting that backend, which from then on serves HTTPS (its key pinned).
 */
import { join } from 'node:path';
import { holdsStore } from '../backend/store/data-folder-files.ts';
import { loadProfile, saveProfile } from '../electron/enrollment/profile.ts';
import type { HostingSetup } from '../electron/hosting/hosted-startup.ts';
import { inProcessHostingEngine } from './hosted-engine.ts';

/** The hosting of a device whose backend data goes in `dataDir`; `log` hears the backend's failure notes. */
export function deviceHosting(dataDir: string, log: (line: string) => void): HostingSetup {
  return { dataDir, engine: inProcessHostingEngine(log) };
}

/** Where a device hosts its backend's data when `--backend-data` is not given. */
export function defaultBackendData(profileDir: string): string {
  return join(profileDir, 'backend');
}

/**
 * Takes an enrolled profile that uses http://127.0.0.1:PORT, and hosts nothing yet, as hosting the
 * backend whose data is in `dataDir` (a store is there); true when it did. Nothing else is changed.
 */
export function adoptLocalBackend(profileDir: string, dataDir: string): boolean {
  const loaded = loadProfile(profileDir);
  if (!loaded.ok) return false;
  const profile = loaded.value;
  const { status, hosting, backendUrls } = profile.info;
  const port = /^http:\/\/127\.0\.0\.1:(\d+)$/.exec(backendUrls.length === 1 ? backendUrls[0]! : '')?.[1];
  if (status !== 'enrolled' || hosting !== null || port === undefined || !holdsStore(dataDir)) return false;
  profile.info = { ...profile.info, hosting: { dataDir, port: Number(port), shared: false } };
  saveProfile(profile);
  return true;
}
