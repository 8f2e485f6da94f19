/**
 * The packet's memory link: a sealed pointer (slug, goal, path, repo) kept in the user's Baton
 * account. Degrade-silent but stated: every failure is a `{status: "skipped", reason}` value.
 */

/** What create stores and resume recalls; sealed before it leaves the machine. */
export interface MemoryPointer {
  slug: string;
  goal: string;
  path: string;
  repo: string;
}

export type MemorySkipped = { status: 'skipped'; reason: 'no_backend' | 'unreachable'; message?: string };
export type MemoryStoreState = { status: 'stored' } | MemorySkipped;
export type MemoryRecallState = { status: 'recalled'; count: number; items: MemoryPointer[] } | MemorySkipped;

export interface MemoryLink {
  /** Stores a pointer; never rejects. */
  remember(pointer: MemoryPointer): Promise<MemoryStoreState>;
  /** Recalls the pointers stored for `slug`; never rejects. */
  recall(slug: string): Promise<MemoryRecallState>;
}

/** The link for a machine without an enrolled device profile. */
export const noBackendLink: MemoryLink = {
  remember: async () => ({ status: 'skipped', reason: 'no_backend' }),
  recall: async () => ({ status: 'skipped', reason: 'no_backend' }),
};

/** Wraps a link so a thrown error or rejection becomes `{status: "skipped", reason: "unreachable"}`. */
export function guardMemoryLink(link: MemoryLink): MemoryLink {
  const unreachable = (error: unknown): MemorySkipped => ({
    status: 'skipped',
    reason: 'unreachable',
    message: error instanceof Error ? error.message : String(error),
  });
  return {
    async remember(pointer) {
      try {
        return await link.remember(pointer);
      } catch (error) {
        return unreachable(error);
      }
    },
    async recall(slug) {
      try {
        return await link.recall(slug);
      } catch (error) {
        return unreachable(error);
      }
    },
  };
}
