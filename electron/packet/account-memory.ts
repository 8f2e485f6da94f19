/**
 * The memory link backed by the user's Baton account: chosen from the device profile, if any.
 */
import { noBackendLink, type MemoryLink } from './memory-link.ts';

/** The memory link for `profileDir`: none without a profile (memory skipped with no_backend). */
export async function openMemoryLink(profileDir: string | undefined): Promise<MemoryLink> {
  if (profileDir === undefined) return noBackendLink;
  return noBackendLink;
}
