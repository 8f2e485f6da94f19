/**
 * The PostgreSQL store's connections and its one transaction helper. Every mutation is one
 * transaction on one pooled connection at READ COMMITTED, taking row locks in one order (session,
 * then handoff) so concurrent compare-and-sets queue instead of deadlocking; PostgreSQL groups the
 * commits of concurrent transactions into one WAL flush. A transaction that lost a race on a unique
 * index (two creates of one id, two active handoffs of one session) or a deadlock is run again, and
 * then refuses the way the winner's committed row says.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { ok } from '../../../shared/errors.ts';
import { refusalOf } from '../rows.ts';
import type { IdempotencyWrite, StoreResult } from '../store.ts';

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
  const recordAndCommit = <T>(client: pg.PoolClient, idem: IdempotencyWrite<T>, result: StoreResult<T>, begin: string) => {
    const answer = idem.encode(result);
    const text = [idem.deviceId, idem.key, idem.requestDigest].map((value) => client.escapeLiteral(value));
    return client.query(
      `${begin}INSERT INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES (${text.join(', ')},
         ${Math.trunc(answer.status)}, ${client.escapeLiteral(JSON.stringify(answer.body))}, ${Math.trunc(clock())}); COMMIT`,
    );
  };
  return async <T>(idem: IdempotencyWrite<T> | undefined, fn: (sql: Sql) => Promise<T>): Promise<StoreResult<T>> => {
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect();
      let broken: Error | undefined;
      let refusal: StoreResult<never> | undefined;
      const tx = openingWithBegin(client);
      try {
        const result: StoreResult<T> = ok(await fn(tx.sql));
        if (idem) await recordAndCommit(client, idem, result, tx.begun() ? '' : 'BEGIN; ');
        else if (tx.begun()) await client.query('COMMIT');
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

/**
 * The transaction's view of `client`: BEGIN goes out with its first statement, in one round trip,
 * when that statement can be sent as a simple query (values all strings, inlined with pg's
 * escapeLiteral, in a text without quotes where a `$n` could hide); otherwise just before it.
 */
function openingWithBegin(client: pg.PoolClient): { sql: Sql; begun: () => boolean } {
  let begun = false;
  const query = async (statement: string | pg.QueryConfig, given: unknown[] = []) => {
    const send = () => (typeof statement === 'string' ? client.query(statement, given) : client.query(statement));
    if (begun) return send();
    begun = true;
    const text = typeof statement === 'string' ? statement : statement.text;
    const values: unknown[] = typeof statement === 'string' ? given : (statement.values ?? []);
    if (!text.includes("'") && values.every((value) => typeof value === 'string')) {
      const inlined = text.replace(/\$(\d+)/g, (_, n: string) => client.escapeLiteral(values[Number(n) - 1] as string));
      const results = (await client.query(`BEGIN; ${inlined}`)) as unknown as pg.QueryResult[];
      return results[1]!;
    }
    await client.query('BEGIN');
    return send();
  };
  return { sql: { query } as unknown as Sql, begun: () => begun };
}

const statementNames = new Map<string, string>();

/**
 * `text` as a named statement: each connection parses and plans it once and then only binds values.
 * The name is a digest of the text, so one text is one statement on every connection.
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = statementNames.get(text);
  if (name === undefined) statementNames.set(text, (name = `baton_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return { name, text, values };
}

/** The rows of one query (a prepared statement). */
export async function rows<R extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<R[]> {
  return (await sql.query<R>(prepared(text, values))).rows;
}

/** The first row of one query (a prepared statement), or undefined. */
export async function row<R extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<R | undefined> {
  return (await sql.query<R>(prepared(text, values))).rows[0];
}
