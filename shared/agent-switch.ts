/**
 * Continuing a session with another agent: on another device by a Move whose target runs a
 * different agent, or on this device by "Switch agent". Either way the new agent starts from a
 * summary continuation (no agent can import another's session), and the session records where the
 * agent changed, so the run view shows which part of the history came from which agent. The record
 * travels sealed with the session's metadata; the backend sees none of it.
 */
import { z } from 'zod';
import { PROVIDER_IDS, PROVIDER_LABELS, isProviderId, type ProviderId } from './provider.ts';

/** One change of a session's agent: from `from` to `to`, on `deviceId`, by a move (`handoffId`) or a switch (null). */
export const ProviderChangeSchema = z.object({
  from: z.string().max(64),
  to: z.string().max(64),
  at: z.number(),
  /** The last transcript entry the earlier agent's part holds (null: the transcript was empty). */
  afterEntryId: z.string().max(200).nullable(),
  /** The device the new agent runs on. */
  deviceId: z.string().max(64),
  /** The move that changed the agent, or null for "Switch agent" on one device. */
  handoffId: z.string().max(64).nullable(),
});
export type ProviderChange = z.infer<typeof ProviderChangeSchema>;

/** How many agent changes a session keeps (the oldest are dropped past it). */
export const PROVIDER_CHANGES_MAX = 100;

/** A move's choice of the agent the target continues with, kept on the session until that move ends. */
export const ContinueWithSchema = z.object({ handoffId: z.string().max(64), provider: z.enum(PROVIDER_IDS) });
export type ContinueWith = z.infer<typeof ContinueWithSchema>;

/** The agents another device may continue a session with when it lacks the session's own, in the order offered. */
const CONTINUATION_ORDER: readonly ProviderId[] = ['claude-code', 'codex', 'copilot', 'qwen-code', 'command'];

/**
 * The agent a device that has `available` continues a session of `current` with, when it lacks
 * `current`: the first real agent it has (never the demo agent, which every device has), else null.
 */
export function continuationAgent(available: readonly string[], current: string): ProviderId | null {
  if (available.includes(current)) return null;
  return CONTINUATION_ORDER.find((id) => id !== current && available.includes(id)) ?? null;
}

/**
 * The other real agents a device that has `available` could continue a session of `current` with,
 * besides `chosen` (the one it continues with by default), in the order offered: each a summary continuation.
 */
export function otherAgents(available: readonly string[], current: string, chosen: ProviderId | null): ProviderId[] {
  return CONTINUATION_ORDER.filter((id) => id !== current && id !== chosen && available.includes(id));
}

/** A provider's label, or its id when it is not one Baton knows. */
export function agentLabel(id: string): string {
  return isProviderId(id) ? PROVIDER_LABELS[id] : id;
}

/** "Claude Code → Codex": what a provider change is, in words. */
export function describeProviderChange(change: Pick<ProviderChange, 'from' | 'to'>): string {
  return `${agentLabel(change.from)} → ${agentLabel(change.to)}`;
}

/** One part of a session's history, by the agent that wrote it: entries `from` (an index) until the next part. */
export interface AgentPart {
  provider: string;
  /** The index of the part's first entry in the transcript given. */
  from: number;
  /** The change that began this part (null for the first). */
  change: ProviderChange | null;
}

/**
 * Splits `entries` (a window of the transcript, oldest first) into the agents' parts: each change
 * begins a part after its `afterEntryId`. A change whose entry is before the window begins it at 0.
 */
export function agentParts(entries: readonly { id: string }[], changes: readonly ProviderChange[], provider: string): AgentPart[] {
  if (changes.length === 0) return [{ provider, from: 0, change: null }];
  const index = new Map(entries.map((entry, i) => [entry.id, i]));
  const parts: AgentPart[] = [{ provider: changes[0]!.from, from: 0, change: null }];
  for (const change of changes) {
    const after = change.afterEntryId === null ? -1 : (index.get(change.afterEntryId) ?? -1);
    const from = Math.max(after + 1, parts.at(-1)!.from);
    // A later change wins the same spot (two changes with nothing written between).
    if (parts.at(-1)!.from === from) parts.pop();
    parts.push({ provider: change.to, from, change });
  }
  return parts;
}

/** `changes` with `change` added at the end, the oldest dropped past PROVIDER_CHANGES_MAX. */
export function withProviderChange(changes: readonly ProviderChange[], change: ProviderChange): ProviderChange[] {
  return [...changes, change].slice(-PROVIDER_CHANGES_MAX);
}

/** Why another agent starts from a summary, before it does (the Move dialog's choice): it cannot import the other agent's session. */
export function summaryReason(from: string, to: string): string {
  return `${agentLabel(to)} cannot import a ${agentLabel(from)} session, so it starts from a summary of it.`;
}

/** Why the new agent started from a summary, once it has (the handoff's resume note). */
export function agentChangeReason(from: string, to: string): string {
  return `Continued with ${agentLabel(to)} instead of ${agentLabel(from)}: ${summaryReason(from, to)}`;
}
