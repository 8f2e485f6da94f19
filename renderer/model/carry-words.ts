/**
 * Carry my changes in plain sentences, pure and testable: what carrying would take ("Takes 3 changed
 * files, 1 new file and 2 unpushed commits along, sealed: only your devices can open it."), whether
 * a blocked move can still be carried, and what a completed move carried and where the source keeps
 * its copy.
 */
import { carrySummary, type CarriedView, type CarryOffer } from '../../shared/carry.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';

/** The codes of the blockers a move that carries the work raises itself (carry-choice.ts on the device). */
const CARRY_OWN = new Set(['carry_unconfirmed_files']);

/**
 * What Carry my changes would take from `report`, when carrying is what stands between the move and
 * its start: every blocker of this device is one carrying resolves, or a file to confirm. Null
 * otherwise (nothing to carry, or something carrying cannot fix, such as carried work over the limit).
 */
export function carryableOffer(report: ReadinessReport): CarryOffer | null {
  if (!report.carry) return null;
  const own = report.blockers.filter((blocker) => !blocker.code.startsWith('target_'));
  if (own.length === 0) return null;
  return own.every((blocker) => blocker.carryable === true || CARRY_OWN.has(blocker.code)) ? report.carry : null;
}

/** "Takes 3 changed files, 1 new file, 2 unpushed commits along, sealed: only your devices can open it." */
export function carryOfferSentence(offer: CarryOffer): string {
  return `Takes ${carrySummary(offer)} along, sealed: only your devices can open it.`;
}

/** What happens to this device's copy once a carried move completes. */
export const KEPT_HERE_SENTENCE =
  'Once the move completes, your copy here goes into a git stash named for the move, and this checkout goes back to the last pushed commit.';

/**
 * What a completed move carried, said on the device that reads it: the target (`arrivedHere`) got it
 * uncommitted; the source kept its copy in the named stash (or says why it could not).
 */
export function carriedSentences(carried: CarriedView, arrivedHere: boolean, sourceName: string): string[] {
  const what = carrySummary(carried);
  if (arrivedHere) {
    return [
      `Your changes came along: ${what}, still uncommitted here as they were on ${sourceName}.`,
      `${sourceName} keeps its copy in the stash “${carried.keptAs}”.`,
    ];
  }
  const went = `Your changes went along: ${what}.`;
  if (carried.parked === null) return [went, `Your copy here goes into the stash “${carried.keptAs}”.`];
  if (carried.parked.ok) return [went, `Your copy here is kept in the stash “${carried.keptAs}” (git stash list shows it).`];
  return [went, `Your copy here could not be put in a stash, so it is still in your checkout: ${carried.parked.message}`];
}
