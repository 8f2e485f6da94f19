import { describe, expect, it } from 'vitest';
import { IdTable } from './id-table.ts';

describe('a packed table of entry ids', () => {
  it('holds every id added once, tells apart ids that differ in one unit or in length, and keeps each flag', () => {
    const table = new IdTable();
    const ids = Array.from({ length: 50_000 }, (_, i) => `baton-${i.toString(36)}-é${'x'.repeat(i % 40)}`);
    for (const id of ids) table.add(id);
    for (const id of ids.slice(0, 100)) table.add(id);
    expect(table.size).toBe(ids.length);
    expect(ids.every((id) => table.has(id))).toBe(true);
    expect(table.has('baton-0-é')).toBe(true);
    expect(table.has('baton-0-e')).toBe(false);
    expect(table.has('baton-0-éx')).toBe(false);
    expect(table.has('')).toBe(false);
    for (const id of ids.filter((_, i) => i % 3 === 0)) table.flag(id);
    expect(ids.every((id, i) => table.flagged(id) === (i % 3 === 0))).toBe(true);
    table.flag('not held');
    expect(table.flagged('not held')).toBe(false);
  });

  it('grows past the size it was made for', () => {
    const table = new IdTable(10);
    for (let i = 0; i < 5000; i++) table.add(`id-${i}-${'long'.repeat(20)}`);
    expect(table.size).toBe(5000);
    expect(table.has(`id-4999-${'long'.repeat(20)}`)).toBe(true);
    expect(table.has(`id-5000-${'long'.repeat(20)}`)).toBe(false);
  });
});
