/**
 * Each store's migrations folder: one file per version, named for it, and an index that lists every one
 * of them, oldest first, numbered 1, 2, … without a gap. A migration written but left out of the index,
 * or listed out of order, fails here rather than never running on a database.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Migration } from './migration.ts';
import { POSTGRES_MIGRATIONS } from './postgres/migrations/index.ts';
import { SQLITE_MIGRATIONS } from './sqlite/migrations/index.ts';

const DIALECTS: [string, readonly Migration[]][] = [
  ['sqlite', SQLITE_MIGRATIONS],
  ['postgres', POSTGRES_MIGRATIONS],
];

/** The migration files of `dialect`'s folder, in name order (its index and tests left out). */
function migrationFiles(dialect: string): { folder: string; files: string[] } {
  const folder = fileURLToPath(new URL(`./${dialect}/migrations/`, import.meta.url));
  const files = readdirSync(folder)
    .filter((file) => file !== 'index.ts' && !file.endsWith('.test.ts'))
    .sort();
  return { folder, files };
}

describe.each(DIALECTS)('the %s migrations', (dialect, migrations) => {
  it('are numbered 1, 2, … in the order the index lists them', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });

  it('are each in a file named for its version (NNN-what-it-does.ts), and the index lists every file', async () => {
    const { folder, files } = migrationFiles(dialect);
    for (const file of files) expect(file).toMatch(/^\d{3}-[a-z0-9]+(-[a-z0-9]+)*\.ts$/);
    expect(files.map((file) => Number(file.slice(0, 3)))).toEqual(migrations.map((m) => m.version));
    const loaded = await Promise.all(files.map(async (file) => ((await import(join(folder, file))) as { migration: Migration }).migration));
    expect(loaded).toEqual(migrations);
  });
});
