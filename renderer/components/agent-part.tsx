/**
 * Where a session's agent changed, in its transcript: a line before each agent's part of the
 * history ("Codex continues from here, from a summary of the Claude Code part"), so a reader sees
 * which entries came from which agent.
 */
import { agentLabel, type AgentPart } from '../../shared/agent-switch.ts';

/** What the line before `part` says; `by`: the device the change happened on, by name. */
export function agentPartText(part: AgentPart, earlier: string | null, by: string | null): string {
  const label = agentLabel(part.provider);
  if (part.change === null || earlier === null) return `${label}'s part`;
  const how = part.change.handoffId === null ? `switched on ${by ?? 'this device'}` : `moved to ${by ?? 'another device'}`;
  return `${label} continues from here (${how}), from a summary of the ${agentLabel(earlier)} part`;
}

/** Renders the line before one agent's part. */
export function AgentPartLine({ text }: { text: string }) {
  return (
    <li className="agent-part" role="separator" aria-label={text}>
      <span>{text}</span>
    </li>
  );
}
