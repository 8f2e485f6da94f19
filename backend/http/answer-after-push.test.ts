/**
 * A change is answered only once its push message has its place in the shared push log, so a change
 * the client makes after the answer, through any instance, is logged after it and reaches every
 * stream after it. Real PostgreSQL, the backend in this process; the log's inserts are held up by a
 * lock another connection takes, as a slow write would.
 */
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { startBackend } from '../backend.ts';
import { createTestAccount, newId, newTestDevice, opaque } from '../../dev-env/sync-fixtures.ts';
import { freshDatabase, queryDatabase } from '../../dev-env/test-postgres.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('answers a change only after its push message is in the log', async () => {
  const database = await freshDatabase('baton_answer');
  const backend = await startBackend({ database });
  cleanups.push(() => backend.close());
  const device = newTestDevice(backend.url, 'laptop');
  await createTestAccount(device);
  const blocker = new pg.Client({ connectionString: database });
  await blocker.connect();
  cleanups.push(() => blocker.end());
  await blocker.query('BEGIN');
  // Reads go on; inserts into the log wait for this transaction.
  await blocker.query('LOCK TABLE push_log IN SHARE MODE');

  const sessionId = newId();
  let answered = false;
  const created = device.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } }).finally(() => (answered = true));
  const logged = async () =>
    (await queryDatabase(database, 'SELECT count(*)::int AS n FROM push_log WHERE message LIKE $1', [`%${sessionId}%`]))[0]!.n;
  // The session itself is stored meanwhile; only its push message waits, its insert queued behind the lock.
  await expect.poll(() => queryDatabase(database, 'SELECT 1 FROM sessions WHERE id = $1', [sessionId]), { timeout: 5000 }).toHaveLength(1);
  const waitingInserts = async () =>
    (await queryDatabase(database, "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'push_log'::regclass AND NOT granted"))[0]!.n;
  await expect.poll(waitingInserts, { timeout: 10_000 }).toBe(1);
  // An answer sent before the insert would be here by the end of a round trip made after it.
  expect((await device.client.call('getSession', { params: { sessionId } })).ok).toBe(true);
  expect(answered).toBe(false);

  await blocker.query('COMMIT');
  expect((await created).ok).toBe(true);
  expect(await logged()).toBe(1);
});
