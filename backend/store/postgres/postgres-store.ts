/**
 * The PostgreSQL store: one database shared by every backend instance, holding records, idempotency
 * answers, nonces, blob bodies and the push log. Opening it checks the database answers and brings
 * its schema up to date under the migration lock. The connection string never reaches a message.
 */
import type pg from 'pg';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import type { Store } from '../store.ts';
import { migratePostgres } from './migrate.ts';
import { makePgMutator, openPool } from './tx.ts';
import { postgresAccountStore } from './accounts.ts';
import { postgresSessionStore } from './sessions.ts';
import { postgresHandoffStore } from './handoffs.ts';
import { postgresBlobRecordStore } from './blob-records.ts';
import { postgresRetentionStore } from './retention.ts';
import { postgresMemoryItemStore } from './memory-items.ts';
import { postgresRequestRecordStore } from './request-records.ts';

export interface PostgresStoreOptions {
  clock?: () => number;
  log?: (line: string) => void;
  /** Connections this instance opens for requests at most (default 20; a few more serve nonces and push). */
  poolSize?: number;
  /** Shown in pg_stat_activity (default "baton-backend"). */
  applicationName?: string;
}

export interface PostgresStore extends Store {
  /** The pool of synchronous commits (records, blob bodies). */
  readonly pool: pg.Pool;
  /** The pool that commits without waiting for the WAL flush (nonces, blob chunks before their final commit, push messages). */
  readonly quick: pg.Pool;
}

export type PostgresStoreCode = 'database_unreachable' | 'database_incompatible';

/** Where the URL points, without user or password: host, port and database name. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname || '/'}`;
  } catch {
    return 'the database';
  }
}

/**
 * Connects to `url`, migrates the schema under the advisory lock and returns the store; refuses as a
 * value (one line naming host, port and database, never the credentials) when the database does not
 * answer or holds a newer schema.
 */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<Result<PostgresStore, PostgresStoreCode>> {
  const clock = options.clock ?? Date.now;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const name = options.applicationName ?? 'baton-backend';
  const where = describeDatabase(url);
  const pool = openPool(url, { max: options.poolSize ?? 20, applicationName: name, log });
  const quick = openPool(url, { max: 4, applicationName: `${name} (quick)`, asyncCommit: true, log });
  const close = () => Promise.all([pool.end(), quick.end()]).then(() => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await close();
    return fail('database_unreachable', `cannot reach the database at ${where}: ${scrub((error as Error).message, url)}`);
  }
  try {
    await migratePostgres(pool, clock());
  } catch (error) {
    await close();
    return fail('database_incompatible', `cannot bring the database at ${where} up to date: ${scrub((error as Error).message, url)}`);
  }
  const mutate = makePgMutator(pool, clock);
  let closing: Promise<void> | undefined;
  return ok({
    kind: 'postgres',
    pool,
    quick,
    async reachable() {
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    ...postgresAccountStore(pool, mutate),
    ...postgresSessionStore(pool, mutate),
    ...postgresHandoffStore(pool, mutate),
    ...postgresBlobRecordStore(pool),
    ...postgresRetentionStore(pool, mutate),
    ...postgresMemoryItemStore(pool, mutate),
    ...postgresRequestRecordStore(pool, quick),
    close: () => (closing ??= close()),
  });
}

/** A driver message with the URL's password (should it quote it) taken out. */
function scrub(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // not a URL: nothing to take out
  }
  return (password ? message.split(password).join('***') : message).slice(0, 300);
}
