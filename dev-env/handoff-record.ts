/** Test support: a handoff record as the backend keeps it, from its parties and its history. */
import type { Handoff } from '../shared/api/handoffs.ts';

/** The handoff `h1` of session `s1` from `source` to `target`, at the last state of `history` (oldest first). */
export function handoffRecord(parties: { source: string; target: string }, history: Handoff['history']): Handoff {
  return {
    id: 'h1',
    accountId: 'a1',
    sessionId: 's1',
    sourceDeviceId: parties.source,
    targetDeviceId: parties.target,
    state: history.at(-1)!.state,
    generation: 1,
    checkpoint: null,
    checkpointKept: false,
    keyVersion: 1,
    cancelReason: null,
    resumePath: null,
    sealedOutcome: null,
    history,
    createdAt: history[0]!.at,
    updatedAt: history.at(-1)!.at,
  };
}
