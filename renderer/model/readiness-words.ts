/**
 * Readiness in a few words, pure and testable: "1 uncommitted file · 1 unpushed commit" for a
 * report's blockers, the blockers this device can fix (the target's own are told on its row of
 * the Move dialog), and counted nouns ("1 file", "2 files").
 */
import type { Blocker } from '../../shared/readiness.ts';

/** `n` and its noun, singular for one: "1 file", "3 files" (`many` for an irregular plural). */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Whether a blocker is about the target device (its codes begin `target_`), fixed there, not here. */
export function isTargetBlocker(blocker: Pick<Blocker, 'code'>): boolean {
  return blocker.code.startsWith('target_');
}

/** The blockers about this device's side of a move (its session and repositories), not the target's. */
export function sourceBlockers(blockers: readonly Blocker[]): Blocker[] {
  return blockers.filter((blocker) => !isTargetBlocker(blocker));
}

function numberIn(blocker: Blocker, key: string): number | null {
  const value = blocker.details?.[key];
  return typeof value === 'number' ? value : null;
}

/** The device a blocker of the target's checkout names (its `device` detail), or "the target". */
function deviceIn(blocker: Blocker): string {
  const device = blocker.details?.['device'];
  return typeof device === 'string' && device !== '' ? device : 'the target';
}

/** A few words for one blocker: "2 uncommitted files", "1 unpushed commit", "no upstream for main". */
export function blockerWords(blocker: Blocker): string {
  switch (blocker.code) {
    case 'dirty_tree':
      return counted(numberIn(blocker, 'fileCount') ?? 1, 'uncommitted file');
    case 'unpushed_commits':
      return counted(numberIn(blocker, 'ahead') ?? 1, 'unpushed commit');
    case 'no_upstream':
      return 'a branch not pushed yet';
    case 'detached_head':
      return 'not on a branch';
    case 'operation_in_progress':
      return 'an unfinished git operation';
    case 'not_a_repository':
      return 'a folder that is not a git repository';
    case 'checkpoint_too_large':
      return 'a checkpoint too large for the backend';
    case 'handoff_in_progress':
      return 'a move already under way';
    case 'not_owner':
      return 'owned by another device';
    case 'target_workspace_dirty':
      return `${counted(numberIn(blocker, 'fileCount') ?? 1, 'uncommitted change')} in ${deviceIn(blocker)}'s checkout`;
    case 'target_branch_diverged':
      return `local commits in ${deviceIn(blocker)}'s checkout`;
    case 'carry_unconfirmed_files':
      return counted(numberIn(blocker, 'fileCount') ?? 1, 'file to confirm before carrying', 'files to confirm before carrying');
    case 'carry_too_large':
      return 'changes too large to carry';
    default:
      return blocker.message.replace(/\.$/, '');
  }
}

/** The blockers in a few words each, joined: "1 uncommitted file · 1 unpushed commit". */
export function blockerSummary(blockers: readonly Blocker[]): string {
  return blockers.map(blockerWords).join(' · ');
}
