/**
 * Test support: throwaway folders under the OS temp dir for one test file, removed after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * Temp folders for one test file: each call of the returned function makes a new folder named with
 * `prefix` (e.g. `baton-lines-`); all are removed after each test. Call it once, at the top of the file.
 */
export function tempFolders(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
