/**
 * What a provider that cannot import is resumed from: the summary-continuation input, built the same
 * way whether a checkpoint arrived from another device or this device restarted its own session.
 */
import type { TranscriptEntry } from '../../shared/agents.ts';
import type { DriftWarning } from '../../shared/api/handoffs.ts';
import type { ContinuationInput } from '../../shared/provider.ts';

/** The newest transcript entries a continuation carries (the prompt renderer trims further to its byte bound). */
export const CONTINUATION_TAIL_ENTRIES = 20;

export interface ContinuationFacts {
  title: string;
  /** The device the session last ran on (this device itself after a restart). */
  ranOn: string | null;
  /** The session's opening prompt, when known. */
  goal: string;
  /** The session's newest transcript entries (at least CONTINUATION_TAIL_ENTRIES of them when it has that many), oldest first. */
  newest: readonly TranscriptEntry[];
  /** Each repository as verified on this device: where it is and at which commit. */
  repos: { relPath: string; branch: string | null; commit: string | null }[];
  drift: DriftWarning[];
  nextAction: string;
  /** The branch's handoff packet prose, when the checkpoint carries one: it is used over what the session alone says. */
  packet?: { goal?: string; acceptance_criteria?: string; current_state?: string; next_action?: string } | null;
  /** The agent that ran the session until now, when another one continues it (its label). */
  previousAgent?: string | null;
  /** After a move, what the agent is told of it. */
  moveNote?: string;
}

/** The continuation input for `facts`: packet, facts verified here, drift, and the transcript tail. */
export function continuationInput(facts: ContinuationFacts): ContinuationInput {
  const prose = facts.packet ?? {};
  return {
    sessionTitle: facts.title,
    sourceDeviceName: facts.ranOn,
    ...(facts.previousAgent && { previousAgent: facts.previousAgent }),
    packet: {
      goal: prose.goal || facts.goal,
      acceptanceCriteria: prose.acceptance_criteria ?? '',
      currentState: prose.current_state || (facts.newest.at(-1)?.text ?? ''),
      nextAction: prose.next_action || facts.nextAction,
    },
    verifiedFacts: facts.repos.map((r) => `${r.relPath} is on ${r.branch ?? '(detached)'} at ${r.commit ?? '(no commit)'}`),
    driftWarnings: facts.drift,
    transcriptTail: facts.newest.slice(-CONTINUATION_TAIL_ENTRIES),
    ...(facts.moveNote !== undefined && { moveNote: facts.moveNote }),
  };
}
