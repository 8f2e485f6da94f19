/**
 * Where a move put the session on its target, and — when that is not the folder the session last
 * used on this device — why, in one sentence the completed view and the transcript both show: the
 * user chose a fresh clone, the old folder is gone, another session of this device runs in it, or it
 * is no longer a checkout of the repository. A folder left behind is always named.
 */
import { existsSync } from 'node:fs';
import type { TargetFolderView } from '../../shared/move-views.ts';
import type { CheckoutPlaces } from '../ports/git.ts';

export interface FolderChangeInput {
  /** This device's name. */
  deviceName: string;
  /** The folder the session's record named on this device before the move ('' when it never ran here). */
  previous: string;
  /** The folder the pin gave. */
  now: string;
  /** Where the pin looked (the user's fresh-clone choice, the folders other sessions run in). */
  places: Pick<CheckoutPlaces, 'fresh' | 'inUse'>;
}

/** Why the session left `previous` for `now` on this device. */
function why({ deviceName, previous, places }: FolderChangeInput): string {
  if (places.fresh) return `as asked, ${deviceName} cloned it afresh and left ${previous} as it was`;
  if (!existsSync(previous)) return `${previous}, where it ran on ${deviceName} before, is not there any more`;
  if (places.inUse.includes(previous)) return `another session on ${deviceName} runs in ${previous}`;
  return `${previous}, where it ran on ${deviceName} before, is no longer a checkout of its repository`;
}

/** The session's folder on this device after the move, with the previous one and why it changed when it did. */
export function folderChange(input: FolderChangeInput): TargetFolderView {
  if (input.previous === '' || input.previous === input.now) return { path: input.now, previousPath: null, changeNote: null };
  const note = `On ${input.deviceName} the session now runs in ${input.now}, not in ${input.previous}: ${why(input)}.`;
  return { path: input.now, previousPath: input.previous, changeNote: note };
}
