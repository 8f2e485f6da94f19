/**
 * The names of what a backend data folder holds (data-folder.ts opens it), in a module of their own
 * so a device can tell whether a folder holds a store without loading the store itself.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const DATA_MARKER = 'baton-data.json';
export const DATABASE_FILE = 'baton.sqlite';
export const NONCES_FILE = 'nonces.sqlite';

/** Whether a store was made in `dataDir` (its marker is there). */
export function holdsStore(dataDir: string): boolean {
  return existsSync(join(dataDir, DATA_MARKER));
}
