/**
 * The source's side of a move that carries the work (Carry my changes): when it takes the
 * checkpoint, each repository's capsule is built from the checkpoint's own git read (nothing of the
 * repository written) and held against this device's limit, compressed; once the target completed
 * the move, the source parks its copy in the named stash (git/carry-park.ts) and records how that
 * went. A move cancelled or failed leaves the checkout as it was: nothing here writes to it before.
 */
import { relative } from 'node:path';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { Carried } from '../../shared/carry.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import type { RepoCarry } from '../git/carry-offer.ts';
import { carryOfferOf } from '../git/carry-offer.ts';
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import type { Clock } from '../ports/clock.ts';
import type { CheckpointRepo, GitPort } from '../ports/git.ts';
import { carryLimitBytes, type MoveSettingsPort } from '../ports/settings.ts';
import { carriedReport, carryTooLarge, keptAsName } from './carry-choice.ts';
import type { CheckpointCarry } from './checkpoint.ts';

/** What carrying work on the source uses. */
export interface CarriedWorkDeps {
  state: Pick<LocalState, 'progress' | 'updateProgress'>;
  git: Pick<GitPort, 'checkpointRead' | 'buildCapsule' | 'parkCarried'>;
  settings: Pick<MoveSettingsPort, 'get'>;
  clock: Clock;
  log(message: string): void;
}

/** The capsules built: what the checkpoint carries, and what the source parks once the move completed. */
interface CarryBuilt {
  carry: CheckpointCarry;
  carried: Carried & { parkable: { path: string; base: string; head: string }[] };
  /** Each carried repository's uncommitted files, by its path here (the checkpoint's packet records them). */
  uncommitted: Map<string, string[]>;
}
type BuiltCarry = ({ ok: true } & CarryBuilt) | { ok: false; blocker: Blocker } | { ok: 'failed'; message: string };

/** The checkpoint's git read: its repositories and carried work; the report that refused it; or why the move is cancelled. */
export type CheckpointGitRead =
  | { ok: true; repos: CheckpointRepo[]; carried: CarryBuilt | null }
  | { ok: false; report: ReadinessReport }
  | { ok: 'cancel'; reason: { code: string; message: string } };

/**
 * The source's git read as it takes the checkpoint of `session` for `handoff`: readiness again — with
 * the work carried, when the move carries it (the session's `carryOn` names this handoff), as the
 * Move judged it — and, from that one read, the capsules built in `scratch` (the caller removes it).
 */
export async function readForCheckpoint(
  deps: CarriedWorkDeps,
  handoff: Handoff,
  session: Readonly<LocalSession>,
  scratch: string,
): Promise<CheckpointGitRead> {
  const read = await deps.git.checkpointRead(session);
  const choice = session.carryOn?.handoffId === handoff.id ? session.carryOn : null;
  const report = choice ? carriedReport(read.report, choice, carryLimitBytes(deps.settings)) : read.report;
  if (!report.ready) return { ok: false, report };
  if (!choice || read.carries.length === 0) return { ok: true, repos: read.repos, carried: null };
  const built = await buildCarry(deps, handoff, session, choice.targetName, read.carries, scratch);
  if (built.ok === false) return { ok: false, report: { ...report, ready: false, blockers: [built.blocker] } };
  if (built.ok === 'failed') return { ok: 'cancel', reason: { code: 'carry_failed', message: built.message.slice(0, 2000) } };
  // The packet of a carried repository says which of its changed files arrive uncommitted.
  const repos = read.repos.map((repo) =>
    built.uncommitted.has(repo.path) ? { ...repo, uncommitted: built.uncommitted.get(repo.path)! } : repo,
  );
  return { ok: true, repos, carried: built };
}

/**
 * Builds the capsule of each of `carries` (the checkpoint's read of `session`'s repositories) in
 * `scratch` (the caller removes it), for the move `handoff` to `targetName`; refused when, compressed,
 * they are over this device's limit.
 */
async function buildCarry(
  deps: CarriedWorkDeps,
  handoff: Handoff,
  session: Readonly<LocalSession>,
  targetName: string,
  carries: readonly RepoCarry[],
  scratch: string,
): Promise<BuiltCarry> {
  const repos: CheckpointCarry['repos'] = [];
  const uncommitted = new Map<string, string[]>();
  for (const [i, carry] of carries.entries()) {
    const built = await deps.git.buildCapsule(carry, `${scratch}/${i}`);
    if (!built.ok) return { ok: 'failed', message: built.message };
    const { bundle, base, head, indexTree, workTree } = built.value;
    uncommitted.set(carry.repo, built.value.uncommitted);
    repos.push({ relPath: relative(session.workspace, carry.repo) || '.', base, head, indexTree, workTree, bundle });
  }
  const offer = carryOfferOf(carries);
  const bytes = repos.reduce((sum, repo) => sum + repo.bundle.size, 0);
  const limit = carryLimitBytes(deps.settings);
  if (bytes > limit) return { ok: false, blocker: carryTooLarge(bytes, limit, offer.largest, true) };
  const counts = { changed: offer.changed, added: offer.added, deleted: offer.deleted, commits: offer.commits };
  const keptAs = keptAsName(targetName, deps.clock(), handoff.id);
  const parkable = carries.map((carry, i) => ({ path: carry.repo, base: repos[i]!.base, head: repos[i]!.head }));
  return {
    ok: true,
    carry: { repos, counts, keptAs },
    carried: { ...counts, repos: repos.map((repo) => repo.relPath), keptAs, parkable },
    uncommitted,
  };
}

/**
 * Parks the source's copy of what `handoff` carried, once: each repository's work in the named stash,
 * the checkout clean at its base. Records how it went (the views show it once the source's part
 * ends); a failure leaves that checkout as it is, with everything it held.
 */
export async function parkCarriedWork(deps: CarriedWorkDeps, handoff: Handoff): Promise<void> {
  const progress = deps.state.progress(handoff.id);
  const carried = progress?.carried;
  if (!carried?.parkable || progress?.parked) return;
  const failures: string[] = [];
  for (const repo of carried.parkable) {
    const parked = await deps.git.parkCarried(repo.path, { ...repo, message: carried.keptAs, handoffId: handoff.id });
    if (!parked.ok) failures.push(parked.message);
  }
  if (failures.length > 0) deps.log(`carried work of ${handoff.id} not parked: ${failures.join('; ')}`);
  deps.state.updateProgress(handoff.id, (p) => {
    p.parked = failures.length === 0 ? { ok: true } : { ok: false, message: failures.join(' ').slice(0, 2000) };
  });
}
