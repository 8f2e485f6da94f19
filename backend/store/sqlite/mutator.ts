/** The SQLite store's one transaction helper, with group commit. */
import type Database from 'better-sqlite3';
import { refusalOf } from '../rows.ts';
import type { IdempotencyWrite, StoreResult } from '../store.ts';

export interface Mutator {
  /**
   * Runs `fn` as one atomic unit and resolves once it is committed. A refusal (via `refuse`) rolls
   * back every write of `fn`. With `idem`, the answer is recorded under the idempotency key in the
   * same unit (a refusal's answer alone, since nothing else was written).
   */
  <T>(idem: IdempotencyWrite<T> | undefined, fn: () => T): Promise<StoreResult<T>>;
}

interface Pending {
  run(): void;
  settle(error?: unknown): void;
}

/**
 * Builds the transaction helper for one database, with group commit: the mutations that arrive in
 * the same turn of the event loop run one after another, each inside its own savepoint (so each is
 * still a compare-and-set that sees the ones before it), under one IMMEDIATE transaction and one
 * fsync. Nobody is answered before that commit returns.
 */
export function makeMutator(db: Database.Database, clock: () => number): Mutator {
  const insertIdem = db.prepare(
    'INSERT INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const record = <T>(idem: IdempotencyWrite<T>, result: StoreResult<T>) => {
    const answer = idem.encode(result);
    insertIdem.run(idem.deviceId, idem.key, idem.requestDigest, answer.status, JSON.stringify(answer.body), clock());
  };
  let queue: Pending[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    try {
      db.transaction(() => batch.forEach((item) => item.run())).immediate();
    } catch (error) {
      batch.forEach((item) => item.settle(error));
      return;
    }
    batch.forEach((item) => item.settle());
  };
  return <T>(idem: IdempotencyWrite<T> | undefined, fn: () => T): Promise<StoreResult<T>> =>
    new Promise((resolve, reject) => {
      let result: StoreResult<T> | undefined;
      let failure: unknown;
      const run = () => {
        try {
          result = db.transaction(() => {
            const value: StoreResult<T> = { ok: true, value: fn() };
            if (idem) record(idem, value);
            return value;
          })();
        } catch (error) {
          const refusal = refusalOf(error);
          if (!refusal) {
            failure = error;
            return;
          }
          result = refusal;
          try {
            if (idem) db.transaction(() => record(idem, refusal))();
          } catch (recordError) {
            failure = recordError;
          }
        }
      };
      const settle = (commitError?: unknown) => {
        if (commitError !== undefined || failure !== undefined || result === undefined)
          return reject(commitError ?? failure ?? new Error('mutation did not run'));
        if (idem) idem.recorded = true;
        resolve(result);
      };
      queue.push({ run, settle });
      if (queue.length === 1) setImmediate(flush);
    });
}
