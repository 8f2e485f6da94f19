/**
 * The two stores every backend test runs against (`describe.each(STORE_KINDS)`): a fresh SQLite data
 * folder or a fresh PostgreSQL database on the run's throwaway server, with what a test needs to look
 * underneath either one (rows, blob uploads left half-written).
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, queryDatabase } from './test-postgres.ts';

export const STORE_KINDS = ['sqlite', 'postgres'] as const;
export type StoreKindName = (typeof STORE_KINDS)[number];

export interface TestStorage {
  kind: StoreKindName;
  /** What `startBackend` takes: the data folder or the database. */
  options: { dataDir: string } | { database: string };
  /** What `baton backend` takes: `--data DIR` or `--database URL`. */
  args: string[];
  /** Rows of one query (`?` placeholders) read straight from the database underneath. */
  rows(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Blob bodies begun and never committed: temp files, or upload rows and their chunks. */
  partialBlobs(): Promise<number>;
  /** Removes the data folder (a database is left to the server, which the run removes). */
  cleanup(): void;
}

/** A fresh store of `kind`. */
export async function testStorage(kind: StoreKindName, prefix = 'baton'): Promise<TestStorage> {
  if (kind === 'postgres') {
    const database = await freshDatabase(prefix.replace(/[^a-z0-9_]/g, '_'));
    return {
      kind,
      options: { database },
      args: ['--database', database],
      rows: (sql, params) => queryDatabase(database, sql, params),
      async partialBlobs() {
        const [found] = await queryDatabase(
          database,
          `SELECT (SELECT count(*) FROM blob_uploads) + (SELECT count(*) FROM blob_chunks c
             WHERE NOT EXISTS (SELECT 1 FROM blob_bodies b WHERE b.upload_id = c.upload_id)) AS n`,
        );
        return Number(found!.n);
      },
      cleanup() {},
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return {
    kind,
    options: { dataDir },
    args: ['--data', dataDir],
    async rows(sql, params = []) {
      const db = new Database(join(dataDir, 'baton.sqlite'));
      try {
        const statement = db.prepare(sql);
        if (!statement.reader) {
          statement.run(...params);
          return [];
        }
        return statement.all(...params) as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
    async partialBlobs() {
      const tmp = join(dataDir, 'blobs', 'tmp');
      return existsSync(tmp) ? readdirSync(tmp).length : 0;
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}
