/** The embedded SQLite store: WAL, synchronous FULL, versioned migrations, one transaction per mutation. */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from './store.ts';
import { migrate } from './sqlite-migrations.ts';
import { makeMutator } from './sqlite-mutator.ts';
import { sqliteAccountStore } from './sqlite-accounts.ts';
import { sqliteSessionStore } from './sqlite-sessions.ts';
import { sqliteHandoffStore } from './sqlite-handoffs.ts';
import { sqliteBlobRecordStore } from './sqlite-blob-records.ts';
import { sqliteRetentionStore } from './sqlite-retention.ts';
import { sqliteMemoryItemStore } from './sqlite-memory-items.ts';
import { sqliteRequestRecordStore } from './sqlite-request-records.ts';

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
