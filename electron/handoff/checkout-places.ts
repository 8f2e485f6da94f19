/**
 * Where a session moving here continues: in the checkout this device ran it in before, else in a
 * checkout of the same repository a session was started in here (a folder the user pointed this
 * device at), else in a clone under the workspace root, found or made — unless the user chose a
 * fresh clone for this move. A session never lands in a fresh clone beside its old checkout
 * without a word: the target's prepare refuses a home checkout it cannot use as it is, and the
 * activation says when the folder changed (folder-change.ts).
 */
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import type { CheckoutPlaces } from '../ports/git.ts';

/** The repository folders a session record names on this device (none before it ran here). */
function foldersOf(session: Readonly<LocalSession>): string[] {
  if (session.workspace === '') return [];
  return session.repoPaths.length > 0 ? session.repoPaths : [session.workspace];
}

/**
 * Where this device looks for the repositories of `sessionId` on a move here: the session's own
 * folders first, then those of the other sessions it knows a folder of here, then the workspace
 * root; never a folder another session this device owns runs in.
 */
export function checkoutPlaces(
  deps: { selfId: string; state: Pick<LocalState, 'readSession' | 'readSessions'>; config: { workspaceRoot: string } },
  sessionId: string,
): CheckoutPlaces {
  const session = deps.state.readSession(sessionId);
  const others = deps.state.readSessions().filter((s) => s.id !== sessionId);
  const inUse = new Set(others.filter((s) => s.ownerDeviceId === deps.selfId).flatMap(foldersOf));
  const homes = [...(session ? foldersOf(session) : []), ...others.flatMap(foldersOf)].filter((path) => !inUse.has(path));
  return {
    workspaceRoot: deps.config.workspaceRoot,
    homes: [...new Set(homes)],
    inUse: [...inUse],
    fresh: session?.freshCloneOn === deps.selfId,
  };
}
