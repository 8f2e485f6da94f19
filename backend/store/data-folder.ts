/**
 * The backend's data folder: the SQLite store (`baton.sqlite`, `nonces.sqlite`), the blob files and a
 * marker (`baton-data.json`) written once the store was first made. A folder never silently starts
 * empty: an unmarked one starts fresh, a marked one whose database is gone is refused unless the
 * operator asks for a fresh store (`--init`), and a database that fails SQLite's quick_check is
 * refused. Each refusal is one clear line naming the file and the fix.
 */
import Database from 'better-sqlite3';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fail, ok, type Result } from '../../shared/errors.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

import { DATA_MARKER, DATABASE_FILE, NONCES_FILE } from './data-folder-files.ts';

export { DATA_MARKER, DATABASE_FILE, NONCES_FILE };

export type DataFolderCode = 'store_missing' | 'store_corrupt';

export interface DataFolderOptions {
  /** Start an empty store in a folder that held one before (its database is gone). */
  init?: boolean;
  clock?: () => number;
}

const RESTORE_HINT = 'restore it from a backup (see "Running the backend" in the README)';

/**
 * Checks the data folder and opens its store: refuses (as a value) a marked folder whose database
 * is missing unless `init`, and a database that fails `PRAGMA quick_check`. Marks the folder once
 * the store is open.
 */
export function openDataFolder(dataDir: string, options: DataFolderOptions = {}): Result<Store, DataFolderCode> {
  mkdirSync(dataDir, { recursive: true });
  const database = join(dataDir, DATABASE_FILE);
  if (existsSync(join(dataDir, DATA_MARKER)) && !existsSync(database) && !options.init) {
    return fail(
      'store_missing',
      `${database} is missing from a data folder that held a Baton store; ${RESTORE_HINT}, or start with --init to begin an empty store there`,
      { database },
    );
  }
  for (const file of [database, join(dataDir, NONCES_FILE)]) {
    const problem = existsSync(file) ? integrityProblem(file) : undefined;
    if (problem !== undefined) {
      return fail('store_corrupt', `${file} is corrupt (${problem}); ${RESTORE_HINT} into an empty folder`, { database: file });
    }
  }
  const store = openSqliteStore(dataDir, options.clock);
  markDataFolder(dataDir, (options.clock ?? Date.now)());
  return ok(store);
}

/** SQLite's quick_check of one database file: undefined when it is sound, else the first problem found. */
export function integrityProblem(file: string): string | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true });
    const rows = db.pragma('quick_check') as { quick_check: string }[];
    const problems = rows.flatMap((r) => r.quick_check.split('\n')).filter((line) => line !== 'ok' && !line.startsWith('*** in database'));
    if (problems.length === 0) return undefined;
    return `${problems[0]!.slice(0, 200)}${problems.length > 1 ? `, and ${problems.length - 1} more problems` : ''}`;
  } catch (error) {
    return (error as Error).message.slice(0, 200);
  } finally {
    db?.close();
  }
}

/** Writes the marker (durably) unless it is there: from now on the folder is known to hold a store. */
export function markDataFolder(dataDir: string, now: number): void {
  const marker = join(dataDir, DATA_MARKER);
  if (existsSync(marker)) return;
  writeFileDurably(marker, `${JSON.stringify({ format: 'baton-backend-data', version: 1, createdAt: new Date(now).toISOString() })}\n`);
}

/** Writes `file` whole or not at all (a temp file synced, renamed into place, the folder synced), with `mode`. */
export function writeFileDurably(file: string, text: string, mode = 0o644): void {
  const temp = `${file}.tmp`;
  writeFileSync(temp, text, { mode });
  const fd = openSync(temp, 'r');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, file);
  const dir = openSync(dirname(file), 'r');
  fsyncSync(dir);
  closeSync(dir);
}
