/**
 * vitest global setup: one throwaway PostgreSQL server for the whole run (fsync off: no test kills
 * this server), named to the test files in BATON_TEST_POSTGRES_URL; each suite makes its own
 * database on it (test-postgres.ts `freshDatabase`). Stopped and removed when the run ends.
 */
import { startPostgres } from './postgres-server.ts';
import { POSTGRES_URL_ENV } from './test-postgres.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const server = await startPostgres({ fast: true, prefix: 'baton-test-pg-' });
  process.env[POSTGRES_URL_ENV] = server.url;
  return () => server.stop();
}
