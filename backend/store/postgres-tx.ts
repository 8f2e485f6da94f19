/**
 * The PostgreSQL store's connections and its one transaction helper. Every mutation is one
 * transaction on one pooled connection at READ COMMITTED, taking row locks in one order (session,
 * then handoff) so concurrent compare-and-sets queue instead of deadlocking; PostgreSQL groups the
 * commits of concurrent transactions into one WAL flush. A transaction that lost a race on a unique
 * index (two creates of one id, two active handoffs of one session) or a deadlock is run again, and
 * then refuses the way the winner's committed row says.
 */
import pg from 'pg';
import { ok } from '../../shared/errors.ts';
import { refusalOf } from './sqlite-rows.ts';
import type { IdempotencyWrite, StoreResult } from './store.ts';

export type Sql = Pick<pg.PoolClient, 'query'>;

export interface PoolOptions {
  /** Connections at most (default 20). */
  max?: number;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  /** Commit without waiting for the WAL flush (nonces and push messages only: they need no durability). */
  asyncCommit?: boolean;
  /** Where a connection failure outside a query is noted (an idle connection dropped by the server). */
  log: (line: string) => void;
}

/** BIGINT columns (times in milliseconds, sizes, ids) read as numbers: every value here is below 2^53. */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** A pool of connections to `url` with the store's settings. */
export function openPool(url: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    application_name: options.applicationName,
    types,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    ...(options.asyncCommit ? { options: '-c synchronous_commit=off' } : {}),
  });
  // An idle connection the server dropped: the pool replaces it; never let it crash the process.
  pool.on('error', (error) => options.log(`backend: database connection lost: ${error.message}`));
  return pool;
}

export interface PgMutator {
  /**
   * Runs `fn` in one transaction and resolves once it is committed. A refusal (via `refuse`) rolls
   * back every write of `fn`; with `idem`, the answer is recorded under the idempotency key in the
   * same transaction (a refusal's answer alone, since nothing else was written).
   */
  <T>(idem: IdempotencyWrite<T> | undefined, fn: (sql: Sql) => Promise<T>): Promise<StoreResult<T>>;
}

const MAX_ATTEMPTS = 5;

/** A lost race worth running again: a serialization failure, a deadlock, or a unique index another transaction filled first. */
function lostRace(error: unknown): boolean {
  const { code, constraint } = error as pg.DatabaseError;
  if (code === '40001' || code === '40P01') return true;
  // Two sends of one idempotency key: the second fails here, and the caller replays the first answer.
  return code === '23505' && constraint !== 'idempotency_pkey';
}

/** Builds the transaction helper over `pool`. */
export function makePgMutator(pool: pg.Pool, clock: () => number): PgMutator {
  const record = <T>(sql: Sql, idem: IdempotencyWrite<T>, result: StoreResult<T>) => {
    const answer = idem.encode(result);
    return sql.query('INSERT INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      idem.deviceId,
      idem.key,
      idem.requestDigest,
      answer.status,
      JSON.stringify(answer.body),
      clock(),
    ]);
  };
  /**
   * The answer recorded and the transaction committed in one round trip: one simple query of two
   * statements (a simple query takes no parameters, so the values go as literals escaped by pg's own
   * escapeLiteral; the numbers are integers). Should the insert fail, the commit does not run.
   */
  const recordAndCommit = <T>(client: pg.PoolClient, idem: IdempotencyWrite<T>, result: StoreResult<T>) => {
    const answer = idem.encode(result);
    const text = [idem.deviceId, idem.key, idem.requestDigest].map((value) => client.escapeLiteral(value));
    return client.query(
      `INSERT INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES (${text.join(', ')},
         ${Math.trunc(answer.status)}, ${client.escapeLiteral(JSON.stringify(answer.body))}, ${Math.trunc(clock())}); COMMIT`,
    );
  };
  return async <T>(idem: IdempotencyWrite<T> | undefined, fn: (sql: Sql) => Promise<T>): Promise<StoreResult<T>> => {
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect();
      let broken: Error | undefined;
      let refusal: StoreResult<never> | undefined;
      try {
        await client.query('BEGIN');
        const result: StoreResult<T> = ok(await fn(client));
        if (idem) await recordAndCommit(client, idem, result);
        else await client.query('COMMIT');
        if (idem) idem.recorded = true;
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        refusal = refusalOf(error);
        if (!refusal && !(attempt < MAX_ATTEMPTS && lostRace(error))) throw error;
      } finally {
        client.release(broken);
      }
      if (!refusal) continue;
      // Recorded once the connection is back in the pool: a full pool of refusals never waits on itself.
      if (idem) {
        await record(pool, idem, refusal);
        idem.recorded = true;
      }
      return refusal;
    }
  };
}

/** The rows of one query. */
export async function rows<R extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<R[]> {
  return (await sql.query<R>(text, values)).rows;
}

/** The first row of one query, or undefined. */
export async function row<R extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<R | undefined> {
  return (await sql.query<R>(text, values)).rows[0];
}
