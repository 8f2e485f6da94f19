/**
 * The target's side of a checkpoint that carries work: each carried repository's pin asks for the
 * source's exact HEAD with its capsule (git/pin-carry.ts restores and proves it), and what the move
 * carried, as the outcome and both sides' completed panel say it.
 */
import type { Carried } from '../../shared/carry.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { PinRequest } from '../ports/git.ts';
import type { Checkpoint } from './checkpoint.ts';

/** The checkpoint's repositories as the pin takes them; refused when a capsule does not match its repository's pinned commit. */
export function pinRequests(checkpoint: Checkpoint): Result<PinRequest[]> {
  const carried = new Map((checkpoint.carry?.repos ?? []).map((repo) => [repo.relPath, repo]));
  const requests: PinRequest[] = [];
  for (const repo of checkpoint.repos) {
    const capsule = carried.get(repo.relPath);
    carried.delete(repo.relPath);
    if (!capsule) {
      requests.push(repo);
      continue;
    }
    if (capsule.head !== repo.commit)
      return fail('malformed_checkpoint', `The carried changes of ${repo.relPath} are not at its pinned commit.`);
    const { base, head, indexTree, workTree } = capsule;
    requests.push({ ...repo, carry: { base, head, indexTree, workTree, bundlePath: capsule.bundle.path } });
  }
  if (carried.size > 0) return fail('malformed_checkpoint', 'The checkpoint carries changes of a repository it does not pin.');
  return ok(requests);
}

/** What the checkpoint carried, as the move's outcome records it; null when it carried nothing. */
export function carriedOf(checkpoint: Checkpoint): Carried | null {
  const carry = checkpoint.carry;
  return carry ? { ...carry.counts, repos: carry.repos.map((repo) => repo.relPath), keptAs: carry.keptAs } : null;
}
