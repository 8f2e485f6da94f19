/** PostgreSQL migrations: instances starting together on one database migrate it once, under the advisory lock. */
import { describe, expect, it } from 'vitest';
import { freshDatabase, queryDatabase } from '../../../dev-env/test-postgres.ts';
import { LATEST_POSTGRES_VERSION } from './migrate.ts';
import { openPostgresStore } from './postgres-store.ts';

describe('PostgreSQL migrations', () => {
  it('let six instances start together on an empty database: each version applied once, every store usable', async () => {
    const database = await freshDatabase('baton_migrate');
    const stores = await Promise.all(Array.from({ length: 6 }, () => openPostgresStore(database)));
    try {
      expect(stores.map((s) => s.ok || s.message)).toEqual(stores.map(() => true));
      const versions = await queryDatabase(database, 'SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.map((r) => r.version)).toEqual(Array.from({ length: LATEST_POSTGRES_VERSION }, (_, i) => i + 1));
      for (const store of stores) if (store.ok) expect(await store.value.listSessions('nobody')).toEqual([]);
    } finally {
      await Promise.all(stores.map((s) => s.ok && s.value.close()));
    }
  });

  it('refuses a database whose schema is newer than this backend, with one line', async () => {
    const database = await freshDatabase('baton_migrate');
    const first = await openPostgresStore(database);
    if (first.ok) await first.value.close();
    await queryDatabase(database, "INSERT INTO schema_migrations VALUES (99, 'from the future', 0)");
    const refused = await openPostgresStore(database);
    expect(!refused.ok && [refused.code, refused.message]).toEqual([
      'database_incompatible',
      expect.stringMatching(/schema version 99, newer than this backend knows/),
    ]);
  });
});
