/**
 * Starting a Move on the source: the full readiness evaluation (session, source git, target
 * eligibility) runs first; only a ready report creates the `requested` record.
 */
import { relative } from 'node:path';
import type { MoveResult } from '../../shared/device-api.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import type { Coordinator } from './coordinator.ts';
import { newId } from './session-service.ts';

/** Refreshes the device list so reachability is current. */
async function refreshDevices(c: Coordinator): Promise<void> {
  const listed = await c.deps.backend.listDevices();
  if (listed.ok) c.deps.devices.replaceAll(listed.value);
}

/** The whole readiness report for moving `sessionId` to `targetDeviceId`. */
export async function evaluateMove(c: Coordinator, sessionId: string, targetDeviceId: string): Promise<ReadinessReport> {
  const { state, selfId, git, devices, clock } = c.deps;
  const session = state.session(sessionId);
  const sessionBlockers: Blocker[] = [];
  if (!session || session.ownerDeviceId !== selfId || session.inputBlock?.code === 'moved') {
    sessionBlockers.push({ code: 'not_owner', message: 'This device does not own the session.', fix: 'Start the move from the device that owns it.' });
  }
  if (c.active(sessionId)) {
    sessionBlockers.push({ code: 'handoff_in_progress', message: 'A move of this session is already in progress.', fix: 'Wait for it to finish or cancel it.' });
  }
  if (!session || sessionBlockers.some((b) => b.code === 'not_owner')) {
    return { ready: false, blockers: sessionBlockers, repos: [], evaluatedAt: clock() };
  }
  await refreshDevices(c);
  const [source, targetBlockers] = await Promise.all([
    git.sourceReadiness(session),
    Promise.resolve(devices.targetBlockers(session, targetDeviceId, c.deps.targetCheck)),
  ]);
  const blockers = [...sessionBlockers, ...source.blockers, ...targetBlockers];
  return { ready: blockers.length === 0, blockers, repos: source.repos, evaluatedAt: clock() };
}

/** Evaluates readiness and, only when ready, creates the handoff at the session's generation. */
export async function startMove(c: Coordinator, sessionId: string, targetDeviceId: string): Promise<MoveResult> {
  const { state, sessions, backend, clock } = c.deps;
  const active = await backend.listHandoffs({ sessionId, active: true });
  if (active.ok) for (const handoff of active.value) c.observe(handoff);
  const report = await evaluateMove(c, sessionId, targetDeviceId);
  if (!report.ready) return { ok: false, code: 'blocked', report };
  const session = state.session(sessionId)!;
  // The target prepares from the sealed metadata: publish the branches as readiness just read them.
  state.updateSession(sessionId, (s) => {
    s.repos = report.repos.map((r) => ({ relPath: relative(session.workspace, r.path) || '.', remoteUrl: r.remoteUrl, branch: r.branch }));
  });
  const published = await sessions.publishMeta(sessionId);
  if (!published.ok) return published;
  const handoffId = newId();
  state.ensureProgress(handoffId, sessionId, 'source', clock());
  const created = await backend.createHandoff(handoffId, sessionId, targetDeviceId, session.generation);
  if (!created.ok) {
    state.updateProgress(handoffId, (p) => { p.finished = true; });
    if (created.code === 'stale_generation' || created.code === 'not_owner') await sessions.markMoved(sessionId);
    return { ok: false, code: created.code, message: created.message };
  }
  c.observe(created.value);
  return { ok: true, handoffId };
}
