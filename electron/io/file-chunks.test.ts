import { openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { ChunkWriter } from './file-chunks.ts';

const folder = tempFolders('baton-chunks-');

describe('ChunkWriter', () => {
  it('closes only after its last write: a write the caller did not wait for is whole in the file, and never in another', async () => {
    const dir = folder();
    const path = join(dir, 'part');
    const out = await ChunkWriter.create(path);
    const first = Buffer.alloc(3 * 1024 * 1024, 1);
    const second = Buffer.alloc(16 * 1024 * 1024, 2);
    await out.write(first);
    const pending = out.write(second);
    await out.close();
    await pending;
    // A file opened after the close may get the closed descriptor's number: nothing reaches it.
    const other = join(dir, 'other');
    writeFileSync(other, '');
    closeSync(openSync(other, 'r'));
    expect(readFileSync(path).equals(Buffer.concat([first, second]))).toBe(true);
    expect(readFileSync(other).length).toBe(0);
    expect(out.size).toBe(first.length + second.length);
    // A second close does nothing (it must not close a descriptor reused since).
    await expect(out.close()).resolves.toBeUndefined();
  });

  it('refuses to create a file in a folder that does not exist', async () => {
    await expect(ChunkWriter.create(join(folder(), 'missing', 'part'))).rejects.toThrow(/ENOENT/);
  });
});
