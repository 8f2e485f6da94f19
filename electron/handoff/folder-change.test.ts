import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { folderChange } from './folder-change.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-folder-change-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const places = { fresh: false, inUse: [] as string[] };

describe('where a move put the session on its target', () => {
  it('says nothing changed when it runs where it ran there before, or never ran there', () => {
    expect(folderChange({ deviceName: 'laptop', previous: dir, now: dir, places })).toEqual({
      path: dir,
      previousPath: null,
      changeNote: null,
    });
    expect(folderChange({ deviceName: 'laptop', previous: '', now: dir, places })).toEqual({
      path: dir,
      previousPath: null,
      changeNote: null,
    });
  });

  it('says where and why when the folder differs: a fresh clone asked for, the old one gone, in use, or no longer a checkout', () => {
    const gone = join(dir, 'gone');
    const now = join(dir, 'app-2');
    const note = (previous: string, given = places) => folderChange({ deviceName: 'laptop', previous, now, places: given }).changeNote;
    expect(note(dir, { fresh: true, inUse: [] })).toBe(
      `On laptop the session now runs in ${now}, not in ${dir}: as asked, laptop cloned it afresh and left ${dir} as it was.`,
    );
    expect(note(gone)).toBe(
      `On laptop the session now runs in ${now}, not in ${gone}: ${gone}, where it ran on laptop before, is not there any more.`,
    );
    expect(note(dir, { fresh: false, inUse: [dir] })).toBe(
      `On laptop the session now runs in ${now}, not in ${dir}: another session on laptop runs in ${dir}.`,
    );
    expect(note(dir)).toContain(`${dir}, where it ran on laptop before, is no longer a checkout of its repository.`);
    expect(folderChange({ deviceName: 'laptop', previous: dir, now, places }).previousPath).toBe(dir);
  });
});
