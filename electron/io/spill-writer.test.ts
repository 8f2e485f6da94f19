import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { SpillWriter } from './spill-writer.ts';

const tempFolder = tempFolders('baton-spill-');
function spillPath(): string {
  return join(tempFolder(), 'body');
}

describe('SpillWriter', () => {
  it('keeps bytes up to its limit in memory, copied, and makes no file', async () => {
    const path = spillPath();
    const out = new SpillWriter(path, 8);
    const reused = Buffer.from('abcd');
    await out.write(reused);
    reused.write('wxyz');
    await out.write(reused);
    expect(out.size).toBe(8);
    expect(Buffer.concat((await out.close())!).toString()).toBe('abcdwxyz');
    expect(existsSync(path)).toBe(false);
  });

  it('writes everything to its file, in order, once the bytes pass the limit', async () => {
    const path = spillPath();
    const out = new SpillWriter(path, 8);
    for (const part of ['abcd', 'efgh', 'ij', 'klmnop']) await out.write(Buffer.from(part));
    expect(out.size).toBe(16);
    expect(await out.close()).toBeNull();
    expect(readFileSync(path, 'utf8')).toBe('abcdefghijklmnop');
  });
});
