/** The embedded SQLite store: WAL, synchronous FULL, versioned migrations, one transaction per mutation. */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../store.ts';
import { migrate } from './migrate.ts';
import { makeMutator } from './mutator.ts';
import { sqliteAccountStore } from './accounts.ts';
import { sqliteSessionStore } from './sessions.ts';
import { sqliteHandoffStore } from './handoffs.ts';
import { sqliteBlobRecordStore } from './blob-records.ts';
import { sqliteRetentionStore } from './retention.ts';
import { sqliteMemoryItemStore } from './memory-items.ts';
import { sqliteRequestRecordStore } from './request-records.ts';

/** The pragmas every connection to the main database uses (the benchmark's baseline uses them too). */
export function applyDurablePragmas(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
}

/** Opens (creating and migrating as needed) the store in `dataDir`. */
export function openSqliteStore(dataDir: string, clock: () => number = Date.now): Store {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'baton.sqlite'));
  applyDurablePragmas(db);
  migrate(db, clock());
  const nonceDb = new Database(join(dataDir, 'nonces.sqlite'));
  nonceDb.pragma('journal_mode = WAL');
  nonceDb.pragma('synchronous = NORMAL');
  const mutate = makeMutator(db, clock);
  return {
    kind: 'sqlite',
    async reachable() {
      try {
        return db.prepare('SELECT 1 AS one').get() !== undefined;
      } catch {
        return false;
      }
    },
    ...sqliteAccountStore(db, mutate),
    ...sqliteSessionStore(db, mutate),
    ...sqliteHandoffStore(db, mutate),
    ...sqliteBlobRecordStore(db, mutate),
    ...sqliteRetentionStore(db, mutate),
    ...sqliteMemoryItemStore(db, mutate),
    ...sqliteRequestRecordStore(db, nonceDb, mutate),
    close() {
      if (db.open) db.close();
      if (nonceDb.open) nonceDb.close();
    },
  };
}
