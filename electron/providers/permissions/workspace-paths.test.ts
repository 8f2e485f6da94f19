/**
 * Whether a change stays inside the workspace is decided by where its paths lead: a link inside the
 * workspace to a folder outside it, a relative path climbing out of it (taken from the workspace, not
 * the process's folder), and a `..` after a link all lead outside; plain and new files inside do not.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../../dev-env/temp-folders.ts';
import { insideWorkspace } from './workspace-paths.ts';

const folder = tempFolders('baton-workspace-paths-');

describe('inside the workspace', () => {
  it('follows links and takes relative paths from the workspace', async () => {
    const root = folder();
    const ws = join(root, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(join(root, 'outside', 'deep'), { recursive: true });
    symlinkSync(join(root, 'outside', 'deep'), join(ws, 'link'));
    expect(await insideWorkspace([join(ws, 'src', 'a.ts'), 'src/new/b.ts', 'c.ts'], ws)).toBe(true);
    expect(await insideWorkspace([join(ws, 'link', 'x.ts')], ws)).toBe(false);
    expect(await insideWorkspace(['link/new-folder/x.ts'], ws)).toBe(false);
    expect(await insideWorkspace(['../../x'], ws)).toBe(false);
    expect(await insideWorkspace(['../ws/src/a.ts'], ws)).toBe(true);
    // A `..` after a link leaves the link's target, as the file system takes it.
    expect(await insideWorkspace(['link/../x.ts'], ws)).toBe(false);
    expect(await insideWorkspace(['.git/config'], ws)).toBe(false);
    expect(await insideWorkspace([], ws)).toBe(false);
  });
});
