/**
 * The SQLite and PostgreSQL stores define one schema, each in its own dialect: the same tables, columns
 * (name, nullability, a normalised type) and constraints (primary keys, unique constraints and indexes
 * with their predicates, foreign keys, checks), read from the catalogs of a real SQLite data folder and
 * a real PostgreSQL database, each migrated by opening its store (dev-env/store-schema.ts reads them).
 * What PostgreSQL keeps beyond that is named below, with why.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSchema, sqliteSchema, type StoreSchema } from '../../dev-env/store-schema.ts';
import { testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';
import { DATABASE_FILE, NONCES_FILE } from './data-folder.ts';
import { openPostgresStore } from './postgres/postgres-store.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';

/** Tables only PostgreSQL has: what SQLite keeps outside its database, or does not need. */
const POSTGRES_ONLY_TABLES: Record<string, string> = {
  blob_uploads: 'blob bodies are files in the SQLite data folder (blobs/)',
  blob_chunks: 'blob bodies are files in the SQLite data folder (blobs/)',
  blob_bodies: 'blob bodies are files in the SQLite data folder (blobs/)',
  push_log: 'pushes cross instances through it; a SQLite backend is one instance and pushes in memory',
  push_log_horizon: 'pushes cross instances through it; a SQLite backend is one instance and pushes in memory',
  tls_key: 'the key of --tls self-signed, shared by the instances; a SQLite backend keeps it in its data folder (tls-key.pem)',
};

/** Tables only SQLite has. */
const SQLITE_ONLY_TABLES: Record<string, string> = {
  backup_holds: 'a `baton backend backup` of the data folder holds body removal off meanwhile; PostgreSQL is backed up with its own tools',
};

/** Tables read in insertion order: by rowid in SQLite, by an identity column `seq` in PostgreSQL. */
const ROWID_ORDERED = ['devices', 'handoffs', 'join_requests', 'memory_items', 'sessions'];

let storages: TestStorage[] = [];
let sqlite: StoreSchema;
let postgres: StoreSchema;

beforeAll(async () => {
  storages = [await testStorage('sqlite', 'baton-schema'), await testStorage('postgres', 'baton_schema')];
  const [folder, database] = storages.map((s) => s.options);
  if (!folder || !('dataDir' in folder) || !database || !('database' in database)) throw new Error('unexpected store kinds');
  openSqliteStore(folder.dataDir, () => 1).close();
  const opened = await openPostgresStore(database.database);
  if (!opened.ok) throw new Error(opened.message);
  await opened.value.close();
  sqlite = sqliteSchema([join(folder.dataDir, DATABASE_FILE), join(folder.dataDir, NONCES_FILE)]);
  postgres = await postgresSchema(database.database);
});

afterAll(() => storages.forEach((s) => s.cleanup()));

describe('the SQLite and PostgreSQL schemas', () => {
  it('have the same tables, but for those PostgreSQL keeps what SQLite keeps in files or in memory', () => {
    const sqliteShared = Object.keys(sqlite).filter((table) => !(table in SQLITE_ONLY_TABLES));
    expect(Object.keys(postgres).sort()).toEqual([...sqliteShared, ...Object.keys(POSTGRES_ONLY_TABLES)].sort());
  });

  it('define the same columns and constraints in every table they share, PostgreSQL numbering in `seq` what SQLite orders by rowid', () => {
    const shared = Object.fromEntries(
      Object.entries(postgres)
        .filter(([table]) => !(table in POSTGRES_ONLY_TABLES))
        .map(([table, { columns, ...constraints }]) => {
          if (!ROWID_ORDERED.includes(table)) return [table, { columns, ...constraints }];
          const { seq, ...rest } = columns;
          expect(seq, table).toEqual({ type: 'integer', nullable: false, identity: true });
          return [table, { columns: rest, ...constraints }];
        }),
    );
    expect(shared).toEqual(Object.fromEntries(Object.entries(sqlite).filter(([table]) => !(table in SQLITE_ONLY_TABLES))));
  });

  it('are read with the constraints the stores rely on, on both sides', () => {
    for (const schema of [sqlite, postgres]) {
      expect(schema.handoffs?.primaryKey).toEqual(['account_id', 'id']);
      expect(schema.handoffs?.unique).toEqual(["account_id, session_id where statenotin'completed','cancelled'"]);
      expect(schema.join_requests?.unique).toEqual(["account_id, invite_id where status='pending'"]);
      expect(schema.session_events?.foreignKeys).toEqual(['(account_id, session_id) → sessions(account_id, id)']);
      expect(schema.devices?.checks).toEqual(["statusin'pending','enrolled','revoked'"]);
      expect(schema.sessions?.checks).toEqual(['generation>=1']);
      expect(schema.sessions?.columns.sealed_meta).toEqual({ type: 'text', nullable: false });
      expect(schema.handoffs?.columns.key_version).toEqual({ type: 'integer', nullable: true });
      expect(schema.nonces?.primaryKey).toEqual(['device_id', 'nonce']);
    }
  });
});
