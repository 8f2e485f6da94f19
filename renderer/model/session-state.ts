/**
 * What the run view derives from a session, pure and testable: its state colour, why Move or the
 * message box is disabled, which remediation a blocker offers, and how a handoff event folds into it.
 */
import type { HandoffView, SessionActivity, SessionDetail, SessionView, TranscriptPage } from '../../shared/device-api.ts';
import { isTerminal, reachedAt } from '../../shared/handoff-states.ts';
import type { Blocker, RemediationAction } from '../../shared/readiness.ts';

export type Tone = 'owner' | 'moving' | 'blocked' | 'attention' | 'remote';

/** The state colour of a session on this device. */
export function sessionTone(session: SessionView, blocked: boolean): Tone {
  if (session.condition === 'needs-attention') return 'attention';
  if (session.activeHandoff) return 'moving';
  if (blocked) return 'blocked';
  return session.isOwner ? 'owner' : 'remote';
}

export const TONE_LABEL: Record<Tone, string> = {
  owner: 'Owned here',
  moving: 'Moving',
  blocked: 'Move blocked',
  attention: 'Needs attention',
  remote: 'Owned elsewhere',
};

/** Why "Move" is disabled, or null when it is enabled (while a move runs, Move is not shown: Cancel move is). */
export function moveBlockReason(session: SessionView): string | null {
  if (!session.isOwner) return `Only the owning device (${session.ownerName}) can move this session.`;
  if (session.condition === 'needs-attention') {
    return session.attention?.retryActivation === false
      ? 'This session needs attention before it can move.'
      : 'Activation needs attention before this session can move.';
  }
  return null;
}

/** A sentence with any code in parentheses left out ("Activation failed (digest_mismatch): …"): codes belong in Details. */
export function withoutCodes(sentence: string): string {
  return sentence.replace(/\s*\([a-z]+(?:_[a-z0-9]+)+\)/g, '');
}

/** Why this device may not send, or null when it may; off the owner, where messages are sent from instead. */
export function sendBlockReason(session: SessionView): string | null {
  if (!session.isOwner)
    return `Messages are sent from ${session.ownerName}, which owns this session; move it here to send them from this device.`;
  if (session.inputBlock) return withoutCodes(session.inputBlock.message);
  return null;
}

/**
 * The remediation a blocker offers: the one its device found it can do, or none. Never guessed from
 * the code: a branch with no remote cannot be pushed, a tree in the middle of a merge is not committed.
 */
export function remediationOf(blocker: Blocker): RemediationAction | null {
  return blocker.action ?? null;
}

/** A cancelled move whose ownership had already been transferred (activation failed on the target). */
export function failedAfterTransfer(handoff: HandoffView): boolean {
  return handoff.state === 'cancelled' && reachedAt(handoff.history, 'ownership-transferred') !== undefined;
}

/** How a move ended, in a few words for the history list (its codes are in the item's Details). */
export function handoffOutcome(handoff: HandoffView): string {
  if (handoff.state === 'completed') return 'completed';
  // Ownership did move: calling it "cancelled" would say the session stayed where it was.
  if (failedAfterTransfer(handoff)) return 'moved · activation failed';
  if (handoff.state === 'cancelled') return 'cancelled';
  return 'in progress';
}

/** The codes of a move for the history item's Details: its state, its cancel code, its resume path. */
export function handoffCodes(handoff: HandoffView): string[] {
  return [handoff.state, handoff.cancelReason?.code, handoff.resumePath].filter((code): code is NonNullable<typeof code> => Boolean(code));
}

/** Loaded session details with the newest views folded in (their transcript and agents kept). */
export function withViews(details: Record<string, SessionDetail | null>, views: SessionView[]): Record<string, SessionDetail | null> {
  let next = details;
  for (const view of views) {
    const detail = details[view.id];
    if (!detail) continue;
    if (next === details) next = { ...details };
    next[view.id] = { ...detail, ...view };
  }
  return next;
}

/**
 * A loaded session detail with an agent's activity folded in (the transcript from the activity's
 * index on, and the agent map), or 'reload' when the detail has missed entries before that index.
 * The detail holds a window of a long transcript (from `transcriptFrom`): indexes are absolute.
 */
export function withActivity(detail: SessionDetail, activity: SessionActivity): SessionDetail | 'reload' {
  const end = detail.transcriptFrom + detail.transcript.length;
  if (activity.transcriptFrom > end) return 'reload';
  if (activity.transcript.length === 0) return { ...detail, agents: activity.agents };
  // Entries from the activity's index on are its; a window that starts later keeps only what it shows.
  const kept = detail.transcript.slice(0, Math.max(0, activity.transcriptFrom - detail.transcriptFrom));
  const added = activity.transcript.slice(Math.max(0, detail.transcriptFrom - activity.transcriptFrom));
  return {
    ...detail,
    transcript: [...kept, ...added],
    transcriptTotal: activity.transcriptFrom + activity.transcript.length,
    agents: activity.agents,
  };
}

/**
 * A loaded session detail with an earlier page of its transcript put in front of its window, or
 * 'reload' when the transcript changed since the window was loaded (another length).
 */
export function withEarlier(detail: SessionDetail, page: TranscriptPage): SessionDetail | 'reload' {
  if (page.total !== detail.transcriptTotal || page.from + page.entries.length !== detail.transcriptFrom) return 'reload';
  return { ...detail, transcript: [...page.entries, ...detail.transcript], transcriptFrom: page.from };
}

/** A session view with `handoff` folded in: active while it runs, last once it ends. */
export function withHandoff<T extends SessionView>(session: T, handoff: HandoffView): T {
  if (session.id !== handoff.sessionId) return session;
  if (isTerminal(handoff.state)) {
    const active = session.activeHandoff?.id === handoff.id ? null : session.activeHandoff;
    return { ...session, activeHandoff: active, lastHandoff: handoff };
  }
  return { ...session, activeHandoff: handoff };
}
