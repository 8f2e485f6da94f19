/**
 * Typed values of the device API for renderer tests: a session on the laptop (this device, d1) that
 * can move to the desktop (d2), its handoffs at any state, readiness reports and device status.
 */
import type { DeviceStatusView, EligibilityView, HandoffView, SessionView } from '../../shared/device-api.ts';
import { FORWARD_STATES, type HandoffState } from '../../shared/handoff-states.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';

/** When the sample move was requested; each later state is reached 100 ms after the one before. */
export const REQUESTED_AT = Date.UTC(2025, 10, 30, 14, 3, 7, 512);

/** A session owned by this device (the laptop), never moved. */
export function sessionView(over: Partial<SessionView> = {}): SessionView {
  return {
    id: 's1',
    title: 'Parser',
    workspace: '/w',
    provider: 'demo',
    permission: 'workspace',
    ownerDeviceId: 'd1',
    ownerName: 'laptop',
    generation: 1,
    isOwner: true,
    condition: 'owned',
    attention: null,
    inputBlock: null,
    activeHandoff: null,
    lastHandoff: null,
    blocked: null,
    updatedAt: 0,
    ...over,
  };
}

/** A move of s1 from the laptop to the desktop, just requested. */
export function handoffView(over: Partial<HandoffView> = {}): HandoffView {
  return {
    id: 'h1',
    sessionId: 's1',
    sourceDeviceId: 'd1',
    sourceName: 'laptop',
    targetDeviceId: 'd2',
    targetName: 'desktop',
    initiatorDeviceId: 'd1',
    state: 'requested',
    generation: 1,
    history: [{ state: 'requested', at: 1, deviceId: 'd1' }],
    cancelReason: null,
    resumePath: null,
    resumeNote: null,
    driftWarnings: [],
    blockers: [],
    targetFolder: null,
    providerChange: null,
    checkpointKept: false,
    carried: null,
    ...over,
  };
}

/** The history of a move that went forward up to `last`, one state every 100 ms from REQUESTED_AT. */
export function historyTo(last: HandoffState): HandoffView['history'] {
  const end = FORWARD_STATES.indexOf(last as (typeof FORWARD_STATES)[number]);
  return FORWARD_STATES.slice(0, end + 1).map((state, index) => ({ state, at: REQUESTED_AT + index * 100, deviceId: null }));
}

/** The sample move, in `state` with the history that leads there. */
export function handoffIn(state: HandoffState, over: Partial<HandoffView> = {}): HandoffView {
  return handoffView({ state, history: historyTo(state), ...over });
}

/** This device's status: enrolled as the laptop (d1), its backend answering. */
export function deviceStatus(over: Partial<DeviceStatusView> = {}): DeviceStatusView {
  return {
    enrolled: true,
    deviceId: 'd1',
    deviceName: 'laptop',
    accountId: 'a1',
    backendUrls: ['http://127.0.0.1:7070'],
    reachability: { state: 'reachable', current: 'http://127.0.0.1:7070', tried: [], since: 1, lastError: null },
    backendKey: { pinned: [], refused: null },
    backendHome: { where: 'elsewhere' },
    joining: false,
    revokedAt: null,
    moveSettings: { carryByDefault: false, carryLimitMiB: 256 },
    ...over,
  };
}

/** This device's status while its one backend address does not answer. */
export function backendUnreachable(): DeviceStatusView {
  const tried = ['http://127.0.0.1:7070'];
  return deviceStatus({ reachability: { state: 'unreachable', current: null, tried, since: 1, lastError: 'connect ECONNREFUSED' } });
}

/** A device that may receive the session. */
export function eligible(deviceId: string, name: string, warning: EligibilityView['warning'] = null): EligibilityView {
  return {
    deviceId,
    name,
    eligible: true,
    reason: null,
    since: null,
    checkedAt: REQUESTED_AT,
    warning,
    continueWith: null,
    otherAgents: [],
  };
}

/** A device that may not, and why. */
export function ineligible(deviceId: string, name: string, code: string, message: string): EligibilityView {
  return {
    deviceId,
    name,
    eligible: false,
    reason: { code, message },
    since: REQUESTED_AT,
    checkedAt: REQUESTED_AT,
    warning: null,
    continueWith: null,
    otherAgents: [],
  };
}

/** A readiness report: blocked by `blockers`, ready when there are none. */
export function readinessReport(blockers: Blocker[]): ReadinessReport {
  return { ready: blockers.length === 0, blockers, repos: [], evaluatedAt: REQUESTED_AT };
}

/** The sample session's owner and generation, no move under way: what its buttons are drawn for. */
export const SAMPLE_STAMP = { ownerDeviceId: 'd1', generation: 1, handoffId: null };

/** A tree with uncommitted work, on the device that runs the session. */
export const DIRTY_TREE: Blocker = { code: 'dirty_tree', repo: '/w', message: 'The tree is dirty.', fix: 'Commit it.' };

/** The target's checkout at `path` on `name` (`deviceId`) holds an uncommitted change: moving into a fresh clone there is offered. */
export function checkoutBlocker(name: string, deviceId: string, path = '/home/me/src/app'): Blocker {
  return {
    code: 'target_workspace_dirty',
    repo: path,
    message: `${name}'s checkout ${path}, which this session continues in there, has 1 uncommitted change.`,
    fix: `Commit or stash them in ${path} on ${name}, then try the move again — or move into a fresh clone on ${name}.`,
    action: { kind: 'fresh-clone', deviceId },
    details: { device: name, fileCount: 1 },
  };
}
