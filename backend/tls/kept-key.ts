/**
 * Where `baton backend --tls self-signed` keeps its private key, made on first start and used from
 * then on (the pin devices hold is on it): `tls-key.pem` (0600) in the SQLite data folder, backed up
 * with the folder; on PostgreSQL one row of `tls_key`, so every instance on the database serves the
 * same key (the first to start makes it; the others find it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { writeFileDurably } from '../store/data-folder.ts';

export const TLS_KEY_FILE = 'tls-key.pem';

/** The key kept in `dataDir`, or `make()`'s, written there durably (0600) first. */
export function keepKeyInFolder(dataDir: string, make: () => string): string {
  const file = join(dataDir, TLS_KEY_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const key = make();
  writeFileDurably(file, key, 0o600);
  return key;
}

/** The key kept in the database, or `make()`'s, inserted unless another instance got there first. */
export async function keepKeyInDatabase(pool: pg.Pool, make: () => string, now: number): Promise<string> {
  await pool.query('INSERT INTO tls_key (id, private_key, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING', [make(), now]);
  const { rows } = await pool.query<{ private_key: string }>('SELECT private_key FROM tls_key WHERE id = 1');
  return rows[0]!.private_key;
}
