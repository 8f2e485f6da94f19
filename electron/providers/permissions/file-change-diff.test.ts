/**
 * The permission diff reads only regular files inside the session's workspace, never waits on what
 * it opens, and reads at most its cap: whatever path an agent names, /dev/zero, a named pipe, a link
 * out of the workspace or a large file are shown as "(file not shown: …)" at once, and a request
 * after them still gets its diff.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../../dev-env/temp-folders.ts';
import { currentText, replaceDiff, writeDiff } from './file-change-diff.ts';

const folder = tempFolders('baton-permission-diff-');

function workspace(): { ws: string; outside: string } {
  const root = folder();
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(ws, 'notes.md'), 'one\ntwo\n');
  writeFileSync(join(outside, 'secret.txt'), 'the secret\n');
  return { ws, outside };
}

describe('the permission diff', () => {
  it('diffs a regular file of the workspace, by its absolute or its relative path', async () => {
    const { ws } = workspace();
    expect(await currentText(join(ws, 'notes.md'), ws)).toEqual({ text: 'one\ntwo\n' });
    expect(await currentText('notes.md', ws)).toEqual({ text: 'one\ntwo\n' });
    expect(await currentText('new.md', ws)).toEqual({ text: '' });
    expect(await replaceDiff('notes.md', [{ oldText: 'two', newText: 'three' }], ws)).toContain('-two\n+three');
  });

  it('does not read /dev/zero, a link out of the workspace, a relative path out of it, or a file over its cap', async () => {
    const { ws, outside } = workspace();
    symlinkSync(outside, join(ws, 'elsewhere'));
    writeFileSync(join(ws, 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 0x61));
    expect(await currentText('/dev/zero', ws)).toEqual({ notShown: 'it is outside the workspace' });
    expect(await currentText(join(ws, 'elsewhere', 'secret.txt'), ws)).toEqual({ notShown: 'it is outside the workspace' });
    expect(await currentText('../outside/secret.txt', ws)).toEqual({ notShown: 'it is outside the workspace' });
    expect(await currentText('big.bin', ws)).toEqual({ notShown: 'it is larger than 1 MiB' });
    const diff = await writeDiff('/dev/zero', 'hello\n', ws);
    expect(diff).toBe('--- /dev/zero\n+++ /dev/zero\n(file not shown: it is outside the workspace)\n+hello\n+\n');
    expect(await replaceDiff(join(ws, 'elsewhere', 'secret.txt'), [{ oldText: 'the', newText: 'a' }], ws)).not.toContain('the secret');
  });

  it('never waits on a named pipe: five requests for one are answered at once, and the next request still gets its diff', async () => {
    const { ws } = workspace();
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    const asked = await Promise.all(Array.from({ length: 5 }, () => replaceDiff('pipe', [{ oldText: 'a', newText: 'b' }], ws)));
    for (const diff of asked) expect(diff).toContain('(file not shown: it is not a regular file)');
    expect(await writeDiff('notes.md', 'one\n', ws)).toContain('-two');
  });
});
