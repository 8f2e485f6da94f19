/**
 * Applies the PostgreSQL store's versioned migrations (migrations/index.ts lists them) in order. Several
 * instances may start together on one database: migrations run under a session-level advisory lock,
 * each in its own transaction with its version row, so exactly one instance applies each version and
 * the others find it applied.
 */
import type { Pool } from 'pg';
import { POSTGRES_MIGRATIONS } from './migrations/index.ts';

/** The advisory lock key every instance takes around migrations ("baton" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x626174_6f6e;

/** The newest schema version this code knows. */
export const LATEST_POSTGRES_VERSION = POSTGRES_MIGRATIONS.at(-1)!.version;

/**
 * Brings the database to the newest schema version (or `upTo`) under the advisory lock; each
 * migration commits with its version row. Returns the version the database is at. Refuses a database
 * already at a version newer than this code knows.
 */
export async function migratePostgres(pool: Pool, now: number, upTo = Infinity): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
      );
      const rows = (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows;
      const applied = new Set(rows.map((r) => r.version));
      const newest = Math.max(0, ...applied);
      if (newest > LATEST_POSTGRES_VERSION) {
        throw new Error(`the database is at schema version ${newest}, newer than this backend knows (${LATEST_POSTGRES_VERSION})`);
      }
      let latest = 0;
      for (const migration of POSTGRES_MIGRATIONS) {
        if (migration.version > upTo) break;
        latest = migration.version;
        if (applied.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            migration.version,
            migration.name,
            now,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
      return latest;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}
