/**
 * A move that carries the workspace's uncommitted work and unpushed commits (Carry my changes), as
 * the source decides it, at the Move and again when it takes the checkpoint: carrying lifts the
 * blockers readiness marked `carryable` and adds its own — files that look like secrets the person
 * has not confirmed by name, and carried work over this device's limit, naming the largest files.
 * Pure: the caller reads the repositories.
 */
import type { CarryChoice, CarryOffer } from '../../shared/carry.ts';
import { carriedStashName } from '../../shared/carry.ts';
import { counted } from '../../shared/plural.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';

const MiB = 1024 * 1024;

const mib = (bytes: number) => `${Math.max(1, Math.ceil(bytes / MiB))} MiB`;

/** A `carry_too_large` blocker: the carried work's size against `limitBytes`, naming its largest files. */
export function carryTooLarge(bytes: number, limitBytes: number, largest: CarryOffer['largest'], compressed: boolean): Blocker {
  const names = largest.map((file) => `${file.path} (${mib(file.bytes)})`).join(', ');
  return {
    code: 'carry_too_large',
    message:
      `The changes to carry are about ${mib(bytes)}${compressed ? ' compressed' : ''}, over the ${mib(limitBytes)} this device carries` +
      (names ? `; the largest: ${names}.` : '.'),
    fix: 'Commit and push the large files (or add them to .gitignore), or raise the carry limit in this device’s settings.',
    details: { bytes, limitBytes, largest },
  };
}

/** The files that look like secrets which `choice` did not confirm, as a blocker; null when there are none. */
export function unconfirmedFiles(offer: CarryOffer, choice: CarryChoice): Blocker | null {
  const confirmed = new Set(choice.confirmedFiles);
  const files = offer.secretFiles.filter((file) => !confirmed.has(file));
  if (files.length === 0) return null;
  return {
    code: 'carry_unconfirmed_files',
    message: `${counted(files.length, 'file')} to carry ${files.length === 1 ? 'looks' : 'look'} like ${files.length === 1 ? 'a secret' : 'secrets'}: ${files.join(', ')}. They travel sealed like everything else; confirm ${files.length === 1 ? 'it' : 'them'} by name first.`,
    fix: 'Confirm the files in the blocked move, or add them to .gitignore so they stay here.',
    details: { files, fileCount: files.length },
  };
}

/**
 * The report as a move that carries the work sees it (`choice`): the `carryable` blockers lifted, and
 * the files to confirm or a size over `limitBytes` blocking instead. Unchanged when nothing can be carried.
 */
export function carriedReport(report: ReadinessReport, choice: CarryChoice, limitBytes: number): ReadinessReport {
  const offer = report.carry;
  if (!offer) return report;
  const own = [
    unconfirmedFiles(offer, choice),
    offer.estimatedBytes > limitBytes ? carryTooLarge(offer.estimatedBytes, limitBytes, offer.largest, false) : null,
  ].filter((b): b is Blocker => b !== null);
  const blockers = [...report.blockers.filter((b) => !b.carryable), ...own];
  return { ...report, ready: blockers.length === 0, blockers };
}

/** The stash the source parks its copy in: named for the target, the time of the checkpoint (hours and minutes, this device's clock) and the handoff. */
export function keptAsName(targetName: string, at: number, handoffId: string): string {
  const time = new Date(at).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  return carriedStashName(targetName, time, handoffId);
}
