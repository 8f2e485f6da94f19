/**
 * The throwaway PostgreSQL server of a test run, and fresh databases on it. vitest's global setup
 * (postgres-global-setup.ts) starts one server per run and names it in BATON_TEST_POSTGRES_URL;
 * outside vitest (benches, tooling) the first call starts one for this process, stopped at `stopOwnPostgres`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startPostgres, type PostgresOptions, type PostgresServer } from './postgres-server.ts';

export const POSTGRES_URL_ENV = 'BATON_TEST_POSTGRES_URL';

let own: Promise<PostgresServer> | undefined;

/** The run's server URL (its `postgres` database); starts one for this process when the run has none. */
export async function postgresServerUrl(options: PostgresOptions = { fast: true }): Promise<string> {
  const shared = process.env[POSTGRES_URL_ENV];
  if (shared) return shared;
  own ??= startPostgres(options);
  return (await own).url;
}

/** Stops the server this process started (if it started one). */
export async function stopOwnPostgres(): Promise<void> {
  const server = await own;
  own = undefined;
  await server?.stop();
}

/** Creates an empty database on the run's server and returns its URL. */
export async function freshDatabase(prefix = 'baton'): Promise<string> {
  const server = await postgresServerUrl();
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return server.replace(/\/[^/]*$/, `/${name}`);
}

/** Runs one query on `url` with `?` placeholders (as SQLite writes them) and returns its rows. */
export async function queryDatabase(url: string, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  let n = 0;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}
