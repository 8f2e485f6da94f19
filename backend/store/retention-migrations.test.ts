/**
 * The retention migrations (SQLite 6, PostgreSQL 5) on a real database at the version before: the
 * handoffs that no longer need their checkpoint are released at once, by the default N, and the
 * records count the rest.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';
import { DEFAULT_KEEP_COMPLETED } from '../retention.ts';
import { migratePostgres } from './postgres/migrate.ts';
import { openPostgresStore } from './postgres/postgres-store.ts';
import { migrate } from './sqlite/migrate.ts';
import { applyDurablePragmas, openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

const A = 'account_000000000A';
const LAPTOP = 'device_00000000001';
const DESK = 'device_00000000002';
const digest = (n: number) => n.toString(16).padStart(64, '0');
const handoffId = (n: number) => `handoff_${String(n).padStart(10, '0')}`;

let storage: TestStorage;
afterEach(() => storage.cleanup());

/** The store's database at the version before retention (SQLite 5, PostgreSQL 4). */
async function versionBefore(): Promise<void> {
  if ('dataDir' in storage.options) {
    const db = new Database(join(storage.options.dataDir, 'baton.sqlite'));
    applyDurablePragmas(db);
    expect(migrate(db, 1, 5)).toBe(5);
    db.close();
    return;
  }
  const pool = new pg.Pool({ connectionString: storage.options.database });
  try {
    expect(await migratePostgres(pool, 1, 4)).toBe(4);
  } finally {
    await pool.end();
  }
}

/**
 * One session with a checkpoint for each of 12 completed moves, a move cancelled before the transfer,
 * and last a move cancelled after it (the target may retry); and an unnamed upload.
 */
async function fill(): Promise<void> {
  await storage.rows(`INSERT INTO accounts (id, current_key_version, created_at) VALUES (?, 1, 1)`, [A]);
  for (const [id, name] of [
    [LAPTOP, 'laptop'],
    [DESK, 'desk'],
  ])
    await storage.rows(
      `INSERT INTO devices (id, account_id, name, status, signing_public_key, agreement_public_key, key_versions)
       VALUES (?, ?, ?, 'enrolled', 'k', 'a', '[1]')`,
      [id, A, name],
    );
  await storage.rows(
    `INSERT INTO sessions (id, account_id, owner_device_id, generation, sealed_meta, last_seq, created_at, updated_at)
     VALUES ('session_0000000001', ?, ?, 15, 'meta', 0, 1, 1)`,
    [A, DESK],
  );
  const moves: [string, string[]][] = [
    ...Array.from({ length: 12 }, (): [string, string[]] => ['completed', ['requested', 'ownership-transferred', 'completed']]),
    ['cancelled', ['requested', 'source-relinquished-and-checkpointed', 'cancelled']],
    ['cancelled', ['requested', 'ownership-transferred', 'target-activating', 'cancelled']],
  ];
  for (const [n, [state, steps]] of moves.entries()) {
    await storage.rows(
      `INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, state, generation, checkpoint_digest,
         checkpoint_size, created_at, updated_at) VALUES (?, ?, 'session_0000000001', ?, ?, ?, ?, ?, 10, ?, ?)`,
      [handoffId(n), A, LAPTOP, DESK, state, n + 1, digest(n), 100 + n, 100 + n],
    );
    for (const [seq, step] of steps.entries())
      await storage.rows(`INSERT INTO handoff_history (account_id, handoff_id, seq, state, at, device_id) VALUES (?, ?, ?, ?, ?, ?)`, [
        A,
        handoffId(n),
        seq + 1,
        step,
        100 + n,
        LAPTOP,
      ]);
  }
  for (const n of [...moves.keys(), 99])
    await storage.rows(`INSERT INTO blobs (account_id, digest, size, created_at) VALUES (?, ?, 10, 1)`, [A, digest(n)]);
}

async function open(): Promise<Store> {
  if ('dataDir' in storage.options) return openSqliteStore(storage.options.dataDir, () => 1000);
  const opened = await openPostgresStore(storage.options.database, { clock: () => 1000 });
  if (!opened.ok) throw new Error(opened.message);
  return opened.value;
}

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  it('releases the checkpoints no handoff needs by the default N and keeps the rest held', async () => {
    storage = await testStorage(kind, 'baton-migrate-retention');
    await versionBefore();
    await fill();
    const store = await open();
    try {
      const kept = await Promise.all(Array.from({ length: 14 }, async (_, n) => (await store.getHandoff(A, handoffId(n)))?.checkpointKept));
      // The two oldest completed beyond the newest 10, and the move cancelled before the transfer.
      expect(DEFAULT_KEEP_COMPLETED).toBe(10);
      expect(kept).toEqual([false, false, ...Array<boolean>(10).fill(true), false, true]);
      // Their three records go at once, the unnamed upload's once past its grace, the held ones never.
      expect(await store.collectBlobRecords({ unnamedBefore: 1, limit: 100, at: 1000 })).toBe(3);
      expect(await store.collectBlobRecords({ unnamedBefore: 2, limit: 100, at: 1000 })).toBe(1);
      expect(await store.unrecordedDigests([0, 1, 2, 11, 12, 13, 99].map(digest))).toEqual([0, 1, 12, 99].map(digest));
    } finally {
      await store.close();
    }
  });
});
