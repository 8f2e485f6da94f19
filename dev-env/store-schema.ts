/**
 * The schema a migrated store defines, read back from its own catalog into one shape for both
 * dialects: its tables, their columns (name, nullability, a type normalised across the dialects) and
 * their constraints (primary key, unique constraints and unique indexes with their predicates,
 * foreign keys, checks). SQLite keeps checks and index predicates only in the statements it stores
 * (`sqlite_master.sql`); PostgreSQL deparses them its own way (`= ANY (ARRAY[…])`, casts): both are
 * brought to one spelling by `normalisedExpression`. backend/store/store-schemas.test.ts compares them.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

export interface ColumnSchema {
  /** 'integer', 'text', 'bytes' or 'time', whatever width or spelling the dialect uses. */
  type: string;
  nullable: boolean;
  /** Numbered by the database itself (a PostgreSQL identity column); absent otherwise. */
  identity?: true;
}

export interface TableSchema {
  columns: Record<string, ColumnSchema>;
  primaryKey: string[];
  /** `a, b` or `a, b where <predicate>`, sorted: unique constraints and unique indexes alike. */
  unique: string[];
  /** `(a, b) → table(x, y)`, sorted. */
  foreignKeys: string[];
  /** Each check's expression as `normalisedExpression` spells it, sorted. */
  checks: string[];
}

export type StoreSchema = Record<string, TableSchema>;

/** A column type as both dialects agree on it: SQLite's INTEGER is 64-bit, so BIGINT is its counterpart. */
export function normalisedType(declared: string): string {
  const type = declared.toLowerCase();
  if (type.includes('int')) return 'integer';
  if (type === 'text' || type.includes('char')) return 'text';
  if (type === 'blob' || type === 'bytea') return 'bytes';
  if (type.startsWith('timestamp')) return 'time';
  return type;
}

/**
 * An SQL expression in one spelling: lower case, casts dropped, PostgreSQL's `= ANY (ARRAY[…])` and
 * `<> ALL (ARRAY[…])` read as `IN (…)` and `NOT IN (…)`, then without parentheses or white space.
 */
export function normalisedExpression(sql: string): string {
  return sql
    .toLowerCase()
    .replace(/::[a-z_]+(\[\])?/g, '')
    .replace(/=\s*any\s*\(\s*array\s*\[([^\]]*)\]\s*\)/g, 'in ($1)')
    .replace(/<>\s*all\s*\(\s*array\s*\[([^\]]*)\]\s*\)/g, 'not in ($1)')
    .replace(/[\s()]/g, '');
}

/** The expression inside each `CHECK (…)` of a CREATE TABLE statement, its parentheses balanced. */
function checksIn(createTable: string): string[] {
  const found: string[] = [];
  for (const match of createTable.matchAll(/\bcheck\s*\(/gi)) {
    let depth = 1;
    let at = match.index + match[0].length;
    const start = at;
    for (; at < createTable.length && depth > 0; at++) {
      if (createTable[at] === '(') depth++;
      else if (createTable[at] === ')') depth--;
    }
    found.push(createTable.slice(start, at - 1));
  }
  return found;
}

const unique = (columns: string[], predicate: string | null) =>
  `${columns.join(', ')}${predicate ? ` where ${normalisedExpression(predicate)}` : ''}`;
const foreignKey = (from: string[], table: string, to: string[]) => `(${from.join(', ')}) → ${table}(${to.join(', ')})`;

/** The schema of the SQLite database files `files` (the store's main database and its side databases), as one. */
export function sqliteSchema(files: string[]): StoreSchema {
  const schema: StoreSchema = {};
  for (const file of files) {
    const db = new Database(file, { readonly: true });
    try {
      const all = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[];
      const tables = all<{ name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      );
      const primaryKeyOf = (table: string) =>
        all<{ name: string; pk: number }>('SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk', table).map((c) => c.name);
      for (const table of tables) {
        const info = all<{ name: string; type: string; notnull: number; pk: number }>('SELECT * FROM pragma_table_info(?)', table.name);
        const indexes = all<{ name: string; unique: number; origin: string; partial: number }>(
          'SELECT * FROM pragma_index_list(?) WHERE "unique" = 1 AND origin != \'pk\'',
          table.name,
        );
        const keys = all<{ id: number; table: string; from: string; to: string | null }>(
          'SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq',
          table.name,
        );
        const byId = new Map<number, typeof keys>();
        for (const key of keys) byId.set(key.id, [...(byId.get(key.id) ?? []), key]);
        schema[table.name] = {
          // A key column is not null in PostgreSQL by definition, and in SQLite by the standard (its
          // catalog says nullable for one not declared NOT NULL, a quirk kept for old files): not null here.
          columns: Object.fromEntries(info.map((c) => [c.name, { type: normalisedType(c.type), nullable: c.notnull === 0 && c.pk === 0 }])),
          primaryKey: primaryKeyOf(table.name),
          unique: indexes
            .map((index) => {
              const columns = all<{ name: string }>('SELECT name FROM pragma_index_info(?) ORDER BY seqno', index.name).map((c) => c.name);
              const sql = all<{ sql: string | null }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", index.name)[0]
                ?.sql;
              const predicate = index.partial === 1 && sql ? (/\bwhere\b([\s\S]*)$/i.exec(sql)?.[1] ?? null) : null;
              return unique(columns, predicate);
            })
            .sort(),
          foreignKeys: [...byId.values()]
            .map((parts) => {
              const target = parts[0]!.table;
              const to = parts.every((p) => p.to !== null) ? parts.map((p) => p.to!) : primaryKeyOf(target);
              return foreignKey(
                parts.map((p) => p.from),
                target,
                to,
              );
            })
            .sort(),
          checks: checksIn(table.sql).map(normalisedExpression).sort(),
        };
      }
    } finally {
      db.close();
    }
  }
  return schema;
}

/** The schema of the PostgreSQL database at `url` (its `public` schema). */
export async function postgresSchema(url: string): Promise<StoreSchema> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async <T>(sql: string) => (await client.query(sql)).rows as T[];
    const tables = await rows<{ oid: number; name: string }>(
      "SELECT c.oid, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'",
    );
    const columns = await rows<{ table: number; num: number; name: string; type: string; notnull: boolean; identity: string }>(
      `SELECT attrelid AS table, attnum AS num, attname AS name, format_type(atttypid, atttypmod) AS type,
              attnotnull AS notnull, attidentity AS identity
         FROM pg_attribute WHERE attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    );
    const constraints = await rows<{
      table: number;
      kind: string;
      keys: number[];
      target: number;
      targetKeys: number[] | null;
      def: string;
    }>(
      `SELECT conrelid AS table, contype AS kind, conkey AS keys, confrelid AS target, confkey AS "targetKeys",
              pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE contype IN ('p', 'u', 'f', 'c')`,
    );
    const indexes = await rows<{ table: number; keys: number[]; predicate: string | null }>(
      `SELECT indrelid AS table, indkey::int2[] AS keys, pg_get_expr(indpred, indrelid) AS predicate FROM pg_index i
        WHERE indisunique AND NOT indisprimary AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    );
    const tableName = new Map(tables.map((t) => [t.oid, t.name]));
    const columnName = (table: number, num: number) => columns.find((c) => c.table === table && c.num === num)!.name;
    const names = (table: number, keys: number[]) => keys.map((num) => columnName(table, num));
    const schema: StoreSchema = {};
    for (const { oid, name } of tables) {
      const own = constraints.filter((c) => c.table === oid);
      const ofKind = (kind: string) => own.filter((c) => c.kind === kind);
      schema[name] = {
        columns: Object.fromEntries(
          columns
            .filter((c) => c.table === oid)
            .map((c) => [
              c.name,
              { type: normalisedType(c.type), nullable: !c.notnull, ...(c.identity === '' ? {} : { identity: true as const }) },
            ]),
        ),
        primaryKey: ofKind('p').flatMap((c) => names(oid, c.keys)),
        unique: [
          ...ofKind('u').map((c) => unique(names(oid, c.keys), null)),
          ...indexes.filter((i) => i.table === oid).map((i) => unique(names(oid, i.keys), i.predicate)),
        ].sort(),
        foreignKeys: ofKind('f')
          .map((c) => foreignKey(names(oid, c.keys), tableName.get(c.target)!, names(c.target, c.targetKeys ?? [])))
          .sort(),
        checks: ofKind('c')
          .map((c) => normalisedExpression(c.def.replace(/^check\s*/i, '')))
          .sort(),
      };
    }
    return schema;
  } finally {
    await client.end();
  }
}
