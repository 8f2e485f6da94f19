/**
 * The packet's memory link: a sealed pointer (slug, goal, path, repo) kept in the user's Baton
 * account. Degrade-silent but stated, in the packet seed's words: whenever no account backend can
 * be used (no enrolled profile, or the backend does not answer) the state is exactly
 * `{status: "skipped", reason: "no_backend"}`, with a `detail` saying why when there is one. An
 * empty recall is `{status: "recalled", count: 0}`: a skip and a miss are different facts.
 */

/** What create stores and resume recalls; sealed before it leaves the machine. */
export interface MemoryPointer {
  slug: string;
  goal: string;
  path: string;
  repo: string;
}

export type MemorySkipped = { status: 'skipped'; reason: 'no_backend'; detail?: string };
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

/** A skip for want of a usable backend, saying why. */
export function noBackend(detail: string): MemorySkipped {
  return { status: 'skipped', reason: 'no_backend', detail };
}

/** Wraps a link so a thrown error or rejection becomes `{status: "skipped", reason: "no_backend", detail}`. */
export function guardMemoryLink(link: MemoryLink): MemoryLink {
  const unreachable = (error: unknown): MemorySkipped =>
    noBackend(`the account backend did not answer: ${error instanceof Error ? error.message : String(error)}`);
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
