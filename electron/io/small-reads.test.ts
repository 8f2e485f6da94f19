/** Small reads on the calling thread: what is at a path, and a small file's trimmed text; absent or unreadable is null. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pathKind, readSmallText } from './small-reads.ts';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-small-reads-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('tells a directory from a file from nothing', () => {
  mkdirSync(join(dir, 'rebase-merge'));
  writeFileSync(join(dir, 'MERGE_HEAD'), 'abc\n');
  expect(pathKind(join(dir, 'rebase-merge'))).toBe('directory');
  expect(pathKind(join(dir, 'MERGE_HEAD'))).toBe('file');
  expect(pathKind(join(dir, 'REVERT_HEAD'))).toBeNull();
  expect(pathKind(join(dir, 'MERGE_HEAD', 'below-a-file'))).toBeNull();
});

it("reads a small file's text trimmed, and null for one that is absent or a directory", () => {
  writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  expect(readSmallText(join(dir, 'HEAD'))).toBe('ref: refs/heads/main');
  expect(readSmallText(join(dir, 'ORIG_HEAD'))).toBeNull();
  expect(readSmallText(dir)).toBeNull();
});
