/**
 * An online, consistent backup of a data folder as one tar archive, made while the backend serves.
 * The databases are copied with SQLite's backup API (better-sqlite3), all pages in one step, so each
 * copy is one consistent snapshot; the blob files it names are added after it. A blob's file is
 * committed before its row, and a backup holds the backend's body removal off from before its
 * snapshot until it ends (a row in `backup_holds`), so every blob the snapshot names is in the archive.
 * The archive holds the folder as it would be laid out (marker, baton.sqlite, nonces.sqlite, the
 * TLS key of `--tls self-signed` when there is one, blobs/<digest>): restoring is `tar -xf FILE -C EMPTY_FOLDER`, then starting the backend on it.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { copyFile, open, rename } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import * as tar from 'tar';
import { fail, ok, type Result } from '../../shared/errors.ts';
import { TLS_KEY_FILE } from '../tls/kept-key.ts';
import { DATA_MARKER, DATABASE_FILE, markDataFolder, NONCES_FILE } from './data-folder.ts';

export interface BackupSummary {
  file: string;
  blobs: number;
  /** Size of the archive. */
  bytes: number;
}

const DIGEST_FILE = /^[0-9a-f]{64}$/;

/** Copies one live database into `to` in a single backup step (one consistent snapshot). */
async function snapshot(from: string, to: string): Promise<void> {
  const db = new Database(from, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(to, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
}

/** How long a backup's hold on body removal lasts should the backup die before lifting it. */
const BACKUP_HOLD_MS = 60 * 60_000;

/** Holds the backend's removal of blob bodies off until the returned function lifts it (nothing on a store before retention). */
function holdRemovals(database: string): () => void {
  const db = new Database(database, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const id = randomBytes(8).toString('hex');
  const held = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'backup_holds'").get() !== undefined;
  if (held) db.prepare('INSERT INTO backup_holds (id, until) VALUES (?, ?)').run(id, Date.now() + BACKUP_HOLD_MS);
  return () => {
    try {
      if (held) db.prepare('DELETE FROM backup_holds WHERE id = ?').run(id);
    } finally {
      db.close();
    }
  };
}

/** The digests of the blobs the staged copy names, its own backup hold taken out of it. */
function namedBlobs(staged: string): Set<string> {
  const db = new Database(staged, { fileMustExist: true });
  try {
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'backup_holds'").get()) db.exec('DELETE FROM backup_holds');
    return new Set(db.prepare('SELECT DISTINCT digest FROM blobs').pluck().all() as string[]);
  } finally {
    db.close();
  }
}

/** Writes the archive of `dataDir` to `file` (via a temp file renamed into place); refuses a folder with no store. */
export async function backupDataFolder(dataDir: string, file: string): Promise<Result<BackupSummary, 'store_missing' | 'backup_failed'>> {
  const database = join(dataDir, DATABASE_FILE);
  if (!existsSync(database)) return fail('store_missing', `${database} does not exist: there is no store to back up in ${dataDir}`);
  const target = resolve(file);
  if (!existsSync(dirname(target))) return fail('backup_failed', `the folder of ${target} does not exist`);
  const staging = mkdtempSync(join(dirname(target), `.${basename(target)}-staging-`));
  const partial = join(staging, 'archive.tar');
  let lift: (() => void) | undefined;
  try {
    lift = holdRemovals(database);
    await snapshot(database, join(staging, DATABASE_FILE));
    const named = namedBlobs(join(staging, DATABASE_FILE));
    const top = [DATABASE_FILE];
    if (existsSync(join(dataDir, NONCES_FILE))) {
      await snapshot(join(dataDir, NONCES_FILE), join(staging, NONCES_FILE));
      top.push(NONCES_FILE);
    }
    if (existsSync(join(dataDir, DATA_MARKER))) await copyFile(join(dataDir, DATA_MARKER), join(staging, DATA_MARKER));
    else markDataFolder(staging, Date.now());
    top.push(DATA_MARKER);
    // The key of --tls self-signed: a restored backend presents the key its devices pinned (its mode, 0600, kept).
    if (existsSync(join(dataDir, TLS_KEY_FILE))) {
      await copyFile(join(dataDir, TLS_KEY_FILE), join(staging, TLS_KEY_FILE));
      top.push(TLS_KEY_FILE);
    }
    // After the snapshot: every blob it names was committed before its row, and stays while the hold lasts.
    const blobsDir = join(dataDir, 'blobs');
    const blobs = existsSync(blobsDir) ? readdirSync(blobsDir).filter((name) => DIGEST_FILE.test(name) && named.has(name)) : [];
    await tar.create({ file: partial, cwd: staging, portable: true }, top);
    if (blobs.length > 0) {
      await tar.replace(
        { file: partial, cwd: dataDir, portable: true },
        blobs.map((digest) => `blobs/${digest}`),
      );
    }
    const handle = await open(partial, 'r');
    await handle.sync();
    await handle.close();
    await rename(partial, target);
    return ok({ file: target, blobs: blobs.length, bytes: statSync(target).size });
  } catch (error) {
    return fail('backup_failed', `the backup of ${dataDir} failed: ${(error as Error).message}`);
  } finally {
    lift?.();
    rmSync(staging, { recursive: true, force: true });
  }
}
