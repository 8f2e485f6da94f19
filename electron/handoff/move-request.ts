/**
 * Starting a Move on the source: the full readiness evaluation (session, source git, the
 * checkpoint's estimated size against the backend's limit, target eligibility) runs first; only a ready report creates the `requested` record.
 */
import { relative } from 'node:path';
import type { MoveResult } from '../../shared/device-api.ts';
import { ok } from '../../shared/errors.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { DeviceDirectory } from '../runtime/device-directory.ts';
import type { BackendPort, Clock, GitPort, SealPort, TargetCheck } from '../runtime/ports.ts';
import { newId, type SessionService } from '../runtime/session-service.ts';
import { checkpointSizeBlocker } from './checkpoint-size.ts';
import type { Coordinator } from './coordinator.ts';

/** What a move request uses, and nothing more. */
export interface MoveRequestDeps {
  selfId: string;
  state: Pick<LocalState, 'session' | 'updateSession' | 'ensureProgress' | 'updateProgress' | 'transcriptBytes'>;
  backend: Pick<BackendPort, 'listDevices' | 'listHandoffs' | 'createHandoff' | 'blobLimit'>;
  /** The key versions this device holds: the checkpoint is sealed under the newest, which the handoff names. */
  seal: Pick<SealPort, 'keyVersions'>;
  git: Pick<GitPort, 'sourceReadiness'>;
  devices: Pick<DeviceDirectory, 'replaceAll' | 'targetBlockers'>;
  targetCheck: TargetCheck;
  sessions: Pick<SessionService, 'publishMeta' | 'markMoved' | 'provider'>;
  handoffs: Pick<Coordinator, 'active' | 'observe'>;
  clock: Clock;
}

export interface MoveRequests {
  /** The whole readiness report for moving `sessionId` to `targetDeviceId`. */
  evaluate(sessionId: string, targetDeviceId: string): Promise<ReadinessReport>;
  /** Evaluates readiness and, only when ready, creates the handoff at the session's generation. */
  start(sessionId: string, targetDeviceId: string): Promise<MoveResult>;
}

export function moveRequests(deps: MoveRequestDeps): MoveRequests {
  const { state, backend, devices, sessions, handoffs, clock } = deps;

  async function evaluate(sessionId: string, targetDeviceId: string): Promise<ReadinessReport> {
    const session = state.session(sessionId);
    const sessionBlockers: Blocker[] = [];
    if (!session || session.ownerDeviceId !== deps.selfId || session.inputBlock?.code === 'moved') {
      sessionBlockers.push({
        code: 'not_owner',
        message: 'This device does not own the session.',
        fix: 'Start the move from the device that owns it.',
      });
    }
    if (handoffs.active(sessionId)) {
      sessionBlockers.push({
        code: 'handoff_in_progress',
        message: 'A move of this session is already in progress.',
        fix: 'Wait for it to finish or cancel it.',
      });
    }
    if (!session || sessionBlockers.some((b) => b.code === 'not_owner')) {
      return { ready: false, blockers: sessionBlockers, repos: [], evaluatedAt: clock() };
    }
    // Reachability must be current: refresh the device list before judging the target.
    const listed = await backend.listDevices();
    if (listed.ok) devices.replaceAll(listed.value);
    // The checkpoint's estimate against the backend's limit: sizes on disk, read beside git.
    const [source, tooLarge] = await Promise.all([deps.git.sourceReadiness(session), checkpointSizeBlocker(deps, session)]);
    const blockers = [
      ...sessionBlockers,
      ...source.blockers,
      ...(tooLarge ? [tooLarge] : []),
      ...devices.targetBlockers(session, targetDeviceId, deps.targetCheck),
    ];
    return { ready: blockers.length === 0, blockers, repos: source.repos, evaluatedAt: clock() };
  }

  async function start(sessionId: string, targetDeviceId: string): Promise<MoveResult> {
    const active = await backend.listHandoffs({ sessionId, active: true });
    if (active.ok) for (const handoff of active.value) handoffs.observe(handoff);
    const report = await evaluate(sessionId, targetDeviceId);
    if (!report.ready)
      return { ok: false, code: 'blocked', message: `The move is blocked: ${report.blockers.map((b) => b.code).join(', ')}.`, report };
    const session = state.session(sessionId)!;
    // The target prepares from the sealed metadata: publish the branches as readiness just read them.
    state.updateSession(sessionId, (s) => {
      s.repos = report.repos.map((r) => ({
        relPath: relative(session.workspace, r.path) || '.',
        remoteUrl: r.remoteUrl,
        branch: r.branch,
      }));
    });
    const published = await sessions.publishMeta(sessionId);
    if (!published.ok) return published;
    const handoffId = newId();
    state.ensureProgress(handoffId, sessionId, 'source', clock());
    // The target checks it holds this version before anything changes hands (target-steps.ts prepare).
    const keyVersion = Math.max(...deps.seal.keyVersions());
    const created = await backend.createHandoff(handoffId, sessionId, targetDeviceId, session.generation, keyVersion);
    if (!created.ok) {
      state.updateProgress(handoffId, (p) => {
        p.finished = true;
      });
      if (created.code === 'stale_generation' || created.code === 'not_owner') await sessions.markMoved(sessionId);
      return { ok: false, code: created.code, message: created.message };
    }
    handoffs.observe(created.value);
    return ok({ handoffId });
  }

  return { evaluate, start };
}
