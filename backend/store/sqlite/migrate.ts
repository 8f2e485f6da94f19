/** Applies the SQLite store's versioned migrations (migrations/index.ts lists them) in order, one transaction each. */
import type Database from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from './migrations/index.ts';

/** The version the newest SQLite migration brings a store to. */
export const LATEST_SQLITE_VERSION = SQLITE_MIGRATIONS.at(-1)!.version;

/**
 * Brings the database to the newest schema version; each migration commits with its version row.
 * Foreign keys are off while migrations run (so a table can be rebuilt under its name, as SQLite
 * documents) and every migration is checked with `foreign_key_check` before it commits.
 */
export function migrate(db: Database.Database, now: number, upTo = Infinity): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  let latest = 0;
  try {
    for (const migration of SQLITE_MIGRATIONS) {
      if (migration.version > upTo) break;
      latest = migration.version;
      if (applied.has(migration.version)) continue;
      db.transaction(() => {
        db.exec(migration.sql);
        const broken = db.pragma('foreign_key_check') as unknown[];
        if (broken.length > 0) throw new Error(`migration ${migration.version} would break ${broken.length} foreign keys`);
        record.run(migration.version, migration.name, now);
      }).immediate();
    }
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
  return latest;
}
