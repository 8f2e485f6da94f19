/**
 * Making a folder's entries durable: what a rename or a new file in it needs to survive power loss.
 * The folder is opened and closed on this thread (microseconds); only the fsync goes through the pool.
 */
import { closeSync, fsync, openSync } from 'node:fs';
import { promisify } from 'node:util';

const fsyncFd = promisify(fsync);

/** fsyncs a folder, so the names created or renamed in it survive power loss. */
export async function syncDirectory(dir: string): Promise<void> {
  const folder = openSync(dir, 'r');
  try {
    await fsyncFd(folder);
  } finally {
    closeSync(folder);
  }
}
