/** Making a folder's entries durable: what a rename or a new file in it needs to survive power loss. */
import { open } from 'node:fs/promises';

/** fsyncs a folder, so the names created or renamed in it survive power loss. */
export async function syncDirectory(dir: string): Promise<void> {
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
