/**
 * A move whose target continues with another agent (shared/agent-switch.ts): which agent the
 * checkpoint's session runs with here, the packet prose its summary is rendered from, and the record
 * of the change the session keeps.
 */
import { agentChangeReason, agentLabel, withProviderChange } from '../../shared/agent-switch.ts';
import type { ContinuationFacts } from '../providers/continuation-input.ts';
import type { LocalSession } from '../local-state/local-state.ts';
import type { Checkpoint } from './checkpoint.ts';

/** The agent the target runs the checkpoint's session with: the one its move asked for, else the session's own. */
export function checkpointAgent(checkpoint: Pick<Checkpoint, 'meta'>): string {
  return checkpoint.meta.continueWith ?? checkpoint.meta.provider;
}

/** The change of agent the checkpoint asks for, or null when the session keeps its agent. */
export function agentChangeOf(checkpoint: Pick<Checkpoint, 'meta'>): { from: string; to: string } | null {
  const to = checkpointAgent(checkpoint);
  return to === checkpoint.meta.provider ? null : { from: checkpoint.meta.provider, to };
}

/** What the summary adds: the packet prose the checkpoint carries and, for another agent, who ran the session. */
export function summaryFacts(checkpoint: Pick<Checkpoint, 'meta' | 'packets'>): Pick<ContinuationFacts, 'packet' | 'previousAgent'> {
  const change = agentChangeOf(checkpoint);
  const packet = checkpoint.packets[0]?.packet as { asserted?: ContinuationFacts['packet'] } | undefined;
  return { packet: packet?.asserted ?? null, previousAgent: change ? agentLabel(change.from) : null };
}

/** Why import is not tried (another agent cannot import this session), or undefined when the agent stays. */
export function importRefusedFor(checkpoint: Pick<Checkpoint, 'meta'>): string | undefined {
  const change = agentChangeOf(checkpoint);
  return change ? agentChangeReason(change.from, change.to) : undefined;
}

/**
 * Records on `s` that its agent changed by the move `handoffId` on device `deviceId`: the new agent,
 * where its part of the history begins (after `afterEntryId`), no export of the old agent kept.
 */
export function recordAgentChange(
  s: LocalSession,
  change: { from: string; to: string },
  at: { handoffId: string; deviceId: string; afterEntryId: string | null; time: number },
): void {
  s.provider = change.to;
  s.providerResume = null;
  s.continueWith = null;
  // Activated again (a restart): the change is recorded once.
  if (s.providerChanges.at(-1)?.handoffId === at.handoffId) return;
  s.providerChanges = withProviderChange(s.providerChanges, {
    ...change,
    at: at.time,
    afterEntryId: at.afterEntryId,
    deviceId: at.deviceId,
    handoffId: at.handoffId,
  });
}
