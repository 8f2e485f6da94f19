/**
 * Starting a Move on the source: the full readiness evaluation (session, source git, the
 * checkpoint's estimated size against the backend's limit, target eligibility) runs first; only a ready report creates the `requested` record.
 * A move that carries the work (Carry my changes: carry-choice.ts) is judged with its work carried,
 * records that choice on the session for its checkpoint, and names to the target the commit on the
 * remote the work is carried against.
 */
import { relative } from 'node:path';
import type { CarryChoice } from '../../shared/carry.ts';
import type { MoveResult } from '../../shared/device-api.ts';
import { ok } from '../../shared/errors.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import { isProviderId, type ProviderId } from '../../shared/provider.ts';
import { newId } from '../crypto/new-id.ts';
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import type { AccountPort } from '../ports/account.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { Clock } from '../ports/clock.ts';
import type { DevicesPort, TargetCheck } from '../ports/devices.ts';
import type { GitPort } from '../ports/git.ts';
import type { SealPort } from '../ports/seal.ts';
import type { SessionsPort } from '../ports/sessions.ts';
import { carryLimitBytes, type MoveSettingsPort } from '../ports/settings.ts';
import { carriedReport } from './carry-choice.ts';
import { checkpointSizeBlocker } from './checkpoint-size.ts';
import { sealMoveCommits } from './move-commits.ts';
import type { Coordinator } from './coordinator.ts';

/** What a move request uses, and nothing more. */
export interface MoveRequestDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession' | 'ensureProgress' | 'updateProgress' | 'transcriptBytes'>;
  backend: Pick<BackendPort, 'listDevices' | 'getHandoff' | 'createHandoff' | 'blobLimit'>;
  /** The key versions this device holds (the checkpoint is sealed under the newest, which the handoff names); seals the move's commits. */
  seal: Pick<SealPort, 'keyVersions' | 'sealJson'>;
  git: Pick<GitPort, 'sourceReadiness'>;
  devices: DevicesPort;
  targetCheck: TargetCheck;
  sessions: Pick<SessionsPort, 'publishMeta' | 'markMoved' | 'provider'>;
  handoffs: Pick<Coordinator, 'active' | 'observe'>;
  /** Fetches key versions this device lacks: a handoff is created only under the account's newest. */
  keys: Pick<AccountPort, 'refreshKeyRing'>;
  /** This device's move settings: how much carried work it sends. */
  settings: Pick<MoveSettingsPort, 'get'>;
  clock: Clock;
}

/** How a move is started: into a fresh clone on the target, and who asked for it. */
export interface MoveOptions {
  /** The target clones the repositories afresh rather than using its checkout of them (which blocked the move). */
  freshClone?: boolean;
  /** The device that asked (the target, by Move here); absent: this one. */
  initiatorDeviceId?: string;
  /** The agent the target continues with (default: the session's own, or DevicesPort.continuationFor's). */
  provider?: ProviderId;
  /** Carry the uncommitted work and unpushed commits along (Carry my changes), with the secret-looking files confirmed; null or absent: not. */
  carry?: CarryChoice | null;
}

export interface MoveRequests {
  /**
   * The whole readiness report for moving `sessionId` to `targetDeviceId`; without a target, this
   * device's side only; `carry`: as a move that carries the work would be judged.
   */
  evaluate(sessionId: string, targetDeviceId?: string, carry?: CarryChoice): Promise<ReadinessReport>;
  /**
   * Evaluates readiness and, only when ready, creates the handoff at the session's generation;
   * `freshClone`: the target clones the repositories afresh rather than using its checkouts;
   * `initiatorDeviceId`: the device that asked (the target, by Move here), else this one; `provider`: the agent the
   * target continues with (default: the session's own, or the one a target without it continues with:
   * DevicesPort.continuationFor).
   */
  start(sessionId: string, targetDeviceId: string, options?: MoveOptions): Promise<MoveResult>;
}

/**
 * A device list this recent judges the target as well as a new one (the Move dialog listed the
 * devices when it opened; pushes keep the list current in between).
 */
export const DEVICE_LIST_FRESH_MS = 10_000;

const IN_PROGRESS: Blocker = {
  code: 'handoff_in_progress',
  message: 'A move of this session is already in progress.',
  fix: 'Wait for it to finish or cancel it.',
};

export function moveRequests(deps: MoveRequestDeps): MoveRequests {
  const { state, backend, devices, sessions, handoffs, clock } = deps;

  /** The agent the target continues `session` with. */
  function agentFor(session: LocalSession, targetDeviceId: string, provider?: ProviderId): string {
    return provider ?? devices.continuationFor(session, targetDeviceId) ?? session.provider;
  }

  async function evaluate(
    sessionId: string,
    targetDeviceId?: string,
    carry?: CarryChoice,
    provider?: ProviderId,
  ): Promise<ReadinessReport> {
    const session = state.readSession(sessionId);
    const sessionBlockers: Blocker[] = [];
    if (!session || session.ownerDeviceId !== deps.selfId || session.inputBlock?.code === 'moved') {
      sessionBlockers.push({
        code: 'not_owner',
        message: 'This device does not own the session.',
        fix: 'Start the move from the device that owns it.',
      });
    }
    if (handoffs.active(sessionId)) sessionBlockers.push(IN_PROGRESS);
    if (!session || sessionBlockers.some((b) => b.code === 'not_owner')) {
      return { ready: false, blockers: sessionBlockers, repos: [], evaluatedAt: clock() };
    }
    // Reachability must be current: a device list older than a few seconds is read again first. The
    // checkpoint's estimate against the backend's limit: sizes on disk, read beside git (with the carried work's, when it goes too).
    const reading = deps.git.sourceReadiness(session);
    const carriedBytes = carry ? reading.then((report) => report.carry?.estimatedBytes ?? 0) : 0;
    const [found, tooLarge] = await Promise.all([
      reading,
      checkpointSizeBlocker(deps, session, carriedBytes),
      targetDeviceId === undefined || devices.listedWithin(DEVICE_LIST_FRESH_MS)
        ? null
        : backend.listDevices().then((listed) => listed.ok && devices.replaceAll(listed.value)),
    ]);
    const source = carry ? carriedReport(found, carry, carryLimitBytes(deps.settings)) : found;
    const blockers = [
      ...sessionBlockers,
      ...source.blockers,
      ...(tooLarge ? [tooLarge] : []),
      ...(targetDeviceId === undefined
        ? []
        : devices.targetBlockers({ ...session, provider: agentFor(session, targetDeviceId, provider) }, targetDeviceId, deps.targetCheck)),
    ];
    const offer = source.carry ? { carry: source.carry } : {};
    return { ready: blockers.length === 0, blockers, repos: source.repos, evaluatedAt: clock(), ...offer };
  }

  async function start(sessionId: string, targetDeviceId: string, options: MoveOptions = {}): Promise<MoveResult> {
    const { provider } = options;
    // A move this device has not heard of yet is refused by the backend (handoff_in_progress, below).
    const report = await evaluate(sessionId, targetDeviceId, options.carry ?? undefined, provider);
    if (!report.ready)
      return { ok: false, code: 'blocked', message: `The move is blocked: ${report.blockers.map((b) => b.code).join(', ')}.`, report };
    const session = state.readSession(sessionId)!;
    // The target prepares from the sealed metadata: publish the branches as readiness just read them.
    const repos = report.repos.map((r) => ({
      relPath: relative(session.workspace, r.path) || '.',
      remoteUrl: r.remoteUrl,
      branch: r.branch,
    }));
    const handoffId = newId();
    // Another agent on the target: the sealed metadata says which, for this handoff (target-steps.ts prepare).
    const agent = agentFor(session, targetDeviceId, provider);
    const continueWith = agent === session.provider || !isProviderId(agent) ? null : { handoffId, provider: agent };
    // The target learns a fresh-clone choice from the metadata published here, before the handoff exists.
    const freshCloneOn = options.freshClone ? targetDeviceId : null;
    // Carried only when there is work to carry; the checkpoint takes it by this choice (source-steps.ts).
    const carryOn = options.carry && report.carry ? { ...options.carry, handoffId, targetName: devices.nameOf(targetDeviceId) } : null;
    // Neither record below has to be on disk before the handoff exists: after a crash, the backend's
    // list of active handoffs brings the move back (coordinator.ts reconcile) and readiness reads the repos again.
    const changed =
      continueWith !== (session.continueWith ?? null) || session.freshCloneOn !== freshCloneOn || carryOn !== (session.carryOn ?? null);
    if (JSON.stringify(repos) !== JSON.stringify(session.repos) || changed)
      state.updateSession(
        sessionId,
        (s) => {
          s.repos = repos;
          s.freshCloneOn = freshCloneOn;
          s.continueWith = continueWith;
          s.carryOn = carryOn;
        },
        false,
      );
    const published = await sessions.publishMeta(sessionId);
    if (!published.ok) return published;
    state.ensureProgress(handoffId, sessionId, 'source', clock(), false);
    // The commits readiness just read travel sealed on the record: the target fetches just those (move-commits.ts) —
    // for work carried, the commit on the remote it is carried against (the capsule brings the rest).
    const commits = report.repos.map((r, i) => ({ relPath: repos[i]!.relPath, commit: (carryOn && r.carryBase) || r.head }));
    const { initiatorDeviceId } = options;
    const requestNow = () => ({
      handoffId,
      sessionId,
      targetDeviceId,
      generation: session.generation,
      // The target checks it holds this version before anything changes hands (target-steps.ts prepare).
      keyVersion: Math.max(...deps.seal.keyVersions()),
      initiatorDeviceId,
      sealedCommits: sealMoveCommits(deps.seal, sessionId, handoffId, commits),
    });
    let request = requestNow();
    let created = await backend.createHandoff(request);
    // The keys were rotated since this device last fetched them: fetched now, and everything sealed again under the newest.
    if (!created.ok && created.code === 'key_version_outdated') {
      await deps.keys.refreshKeyRing().catch(() => undefined);
      request = requestNow();
      created = await backend.createHandoff(request);
    }
    const { sealedCommits } = request;
    // A backend that does not know the field refuses it: asked again without (the target then fetches each branch).
    if (!created.ok && created.code === 'validation_failed' && sealedCommits !== undefined)
      created = await backend.createHandoff({ ...request, sealedCommits: undefined });
    if (!created.ok) {
      state.updateProgress(handoffId, (p) => {
        p.finished = true;
      });
      if (created.code === 'stale_generation' || created.code === 'not_owner') await sessions.markMoved(sessionId);
      if (created.code === 'handoff_in_progress') return inProgress(created.details?.handoffId, report);
      return { ok: false, code: created.code, message: created.message };
    }
    handoffs.observe(created.value);
    return ok({ handoffId });
  }

  /** The backend knows of a move this device had not heard of: learn it, and say the move is blocked by it. */
  async function inProgress(activeId: unknown, report: ReadinessReport): Promise<MoveResult> {
    const active = typeof activeId === 'string' ? await backend.getHandoff(activeId) : null;
    if (active?.ok) handoffs.observe(active.value);
    const blocked: ReadinessReport = { ...report, ready: false, blockers: [IN_PROGRESS] };
    return { ok: false, code: 'blocked', message: 'The move is blocked: handoff_in_progress.', report: blocked };
  }

  return { evaluate, start };
}
