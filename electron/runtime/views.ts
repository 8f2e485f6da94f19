/** The views the renderer gets (shared/device-api.ts), built from local state and handoff records. */
import { HandoffOutcome, type Handoff } from '../../shared/api/handoffs.ts';
import {
  TRANSCRIPT_WINDOW,
  type AttentionView,
  type HandoffView,
  type InputBlock,
  type MoveBlockView,
  type SessionDetail,
  type SessionView,
  type TranscriptPage,
} from '../../shared/device-api.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { redactCredentials } from '../../shared/url-credentials.ts';
import { isTerminal } from '../../shared/handoff-states.ts';
import { isProviderId, PROVIDER_CAPABILITIES } from '../../shared/provider.ts';
import type { DeviceDirectory } from './device-directory.ts';
import type { LocalSession, LocalState } from '../local-state/local-state.ts';
import type { SealPort } from '../ports/seal.ts';
import { openCancelReason } from '../handoff/cancel-reason.ts';
import { agentsShown, latestOutcomes, pendingNow } from './permissions/permission-book.ts';
import type { SessionService } from './sessions/session-service.ts';

export interface ViewDeps {
  selfId: string;
  state: LocalState;
  seal: SealPort;
  devices: Pick<DeviceDirectory, 'nameOf'>;
  sessions: Pick<SessionService, 'inputBlock'>;
  /** Whether the backend refused this device as revoked (it takes no input then). */
  revoked?(): boolean;
}

/** A handoff record as the UI shows it (outcome unsealed when this device can). */
export function handoffView(deps: ViewDeps, handoff: Handoff): HandoffView {
  const progress = deps.state.progress(handoff.id);
  let resumeNote = progress?.resumeNote ?? null;
  let driftWarnings = progress?.driftWarnings ?? [];
  let targetFolder = progress?.targetFolder ?? null;
  let providerChange = progress?.providerChange ?? null;
  let carried = progress?.carried ?? null;
  // The target recorded its outcome as it activated; any other device reads it sealed on the record.
  if (handoff.sealedOutcome && targetFolder === null) {
    const opened = deps.seal.openJson(handoff.sealedOutcome, {
      kind: 'handoff-outcome',
      sessionId: handoff.sessionId,
      handoffId: handoff.id,
    });
    const parsed = opened.ok ? HandoffOutcome.safeParse(opened.value) : null;
    if (parsed?.success) {
      ({ resumeNote, driftWarnings } = parsed.data);
      targetFolder = parsed.data.targetFolder ?? null;
      providerChange = parsed.data.providerChange ?? null;
      carried = carried ?? parsed.data.carried ?? null;
    }
  }
  const cancelReason = openCancelReason(deps.seal, handoff);
  const blockers = progress?.blockers.length ? progress.blockers : (cancelReason?.blockers ?? []);
  return {
    id: handoff.id,
    sessionId: handoff.sessionId,
    sourceDeviceId: handoff.sourceDeviceId,
    sourceName: deps.devices.nameOf(handoff.sourceDeviceId),
    targetDeviceId: handoff.targetDeviceId,
    targetName: deps.devices.nameOf(handoff.targetDeviceId),
    initiatorDeviceId: handoff.initiatorDeviceId ?? handoff.sourceDeviceId,
    state: handoff.state,
    generation: handoff.generation,
    history: handoff.history,
    cancelReason,
    resumePath: handoff.resumePath,
    resumeNote: resumeNote === null ? null : redactCredentials(resumeNote),
    driftWarnings,
    blockers: redactedBlockers(blockers),
    targetFolder,
    providerChange,
    checkpointKept: handoff.checkpointKept,
    // Said once the move completed (a checkpoint that carried work may still have been cancelled).
    carried:
      carried && handoff.state === 'completed'
        ? {
            changed: carried.changed,
            added: carried.added,
            deleted: carried.deleted,
            commits: carried.commits,
            repos: carried.repos,
            keptAs: carried.keptAs,
            parked: progress?.parked ?? null,
          }
        : null,
  };
}

/** Blockers with no credential in their sentences (they can quote a remote or a git error). */
function redactedBlockers(blockers: readonly Blocker[]): Blocker[] {
  return blockers.map((b) => ({ ...b, message: redactCredentials(b.message), fix: redactCredentials(b.fix) }));
}

/**
 * The session's blocked move as the UI shows it (the devices named), or null: a block is of the
 * generation it was found at, by the owner of that generation, so one the session has moved on from
 * (or that would move it to where it runs) is in no view.
 */
function blockedView(deps: ViewDeps, session: Readonly<LocalSession>): MoveBlockView | null {
  const block = session.moveBlock;
  if (!block || block.generation !== session.generation || block.targetDeviceId === session.ownerDeviceId) return null;
  return {
    sourceDeviceId: session.ownerDeviceId,
    sourceName: deps.devices.nameOf(session.ownerDeviceId),
    generation: block.generation,
    targetDeviceId: block.targetDeviceId,
    targetName: deps.devices.nameOf(block.targetDeviceId),
    askedBy: block.askedBy,
    blockers: redactedBlockers(block.blockers),
    foundBy: block.foundBy,
    handoffId: block.handoffId,
    at: block.at,
  };
}

const REVOKED_BLOCK: InputBlock = { code: 'revoked', message: 'This device was revoked from the account: it takes no input.' };

/** An input block with no credential in its sentence (it can quote an activation failure). */
function redactedBlock(block: InputBlock): InputBlock {
  return block === null ? null : { ...block, message: redactCredentials(block.message) };
}

/** What the session needs on this device before it can run, and the fix; null when nothing. */
function attentionOf(deps: ViewDeps, session: Readonly<LocalSession>): AttentionView | null {
  const needs = session.needsAttention;
  if (!needs || session.ownerDeviceId !== deps.selfId) return null;
  const retryActivation = needs.handoffId !== null;
  return {
    code: needs.code,
    message: redactCredentials(needs.message),
    fix: redactCredentials(needs.fix ?? (retryActivation ? 'Retry activation once the cause is fixed.' : 'Restart Baton on this device.')),
    retryActivation,
  };
}

function condition(deps: ViewDeps, session: Readonly<LocalSession>, active: Handoff | undefined): SessionView['condition'] {
  if (session.needsAttention && session.ownerDeviceId === deps.selfId) return 'needs-attention';
  if (active) return 'moving';
  if (session.ownerDeviceId === deps.selfId) return 'owned';
  if (session.inputBlock?.code === 'moved') return 'moved';
  return 'remote';
}

/** A session as listed, with its active and last handoff. */
export function sessionView(deps: ViewDeps, session: Readonly<LocalSession>, handoffs: Handoff[]): SessionView {
  const active = handoffs.find((h) => !isTerminal(h.state));
  const last = [...handoffs].reverse().find((h) => isTerminal(h.state));
  return {
    id: session.id,
    title: session.title,
    workspace: session.workspace,
    provider: session.provider,
    permission: isProviderId(session.provider) && PROVIDER_CAPABILITIES[session.provider].permissions ? session.permission : null,
    ownerDeviceId: session.ownerDeviceId,
    ownerName: deps.devices.nameOf(session.ownerDeviceId),
    generation: session.generation,
    isOwner: session.ownerDeviceId === deps.selfId,
    condition: condition(deps, session, active),
    attention: attentionOf(deps, session),
    inputBlock: deps.revoked?.() ? REVOKED_BLOCK : redactedBlock(deps.sessions.inputBlock(session)),
    activeHandoff: active ? handoffView(deps, active) : null,
    lastHandoff: last ? handoffView(deps, last) : null,
    blocked: blockedView(deps, session),
    updatedAt: session.updatedAt,
  };
}

/**
 * A session with its agent map and the newest window of its transcript (TRANSCRIPT_WINDOW entries):
 * the run view asks for earlier ones page by page (readTranscript), so a day-long session is never
 * sent whole.
 */
export function sessionDetail(deps: ViewDeps, session: Readonly<LocalSession>, handoffs: Handoff[]): SessionDetail {
  const total = deps.state.transcriptCount(session.id);
  const from = Math.max(0, total - TRANSCRIPT_WINDOW);
  return {
    ...sessionView(deps, session, handoffs),
    agents: agentsShown(session),
    transcript: deps.state.transcriptPage(session.id, from, TRANSCRIPT_WINDOW),
    transcriptFrom: from,
    transcriptTotal: total,
    permissionRequests: pendingNow(session),
    permissionOutcomes: latestOutcomes(session),
    providerChanges: session.providerChanges,
  };
}

/** Entries `from` … `from + count` of the session's transcript (clamped; older ones read from its log), with its length now. */
export function transcriptPage(deps: Pick<ViewDeps, 'state'>, sessionId: string, from: number, count: number): TranscriptPage {
  const total = deps.state.transcriptCount(sessionId);
  const start = Math.min(from, total);
  return { sessionId, from: start, total, entries: deps.state.transcriptPage(sessionId, start, count) };
}
