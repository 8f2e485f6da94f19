/**
 * The agent a Move's target continues with, for a target that has other real agents too: the
 * default first (the session's own agent, from the checkpoint, or the one offered in its place),
 * then each other agent there, marked as a summary continuation.
 */
import { useId } from 'react';
import { agentLabel, summaryReason } from '../../shared/agent-switch.ts';
import type { EligibilityView } from '../../shared/device-api.ts';
import type { ProviderId } from '../../shared/provider.ts';

interface MoveAgentChoiceProps {
  entry: EligibilityView;
  /** The session's agent (undefined while the session list has not come). */
  sessionAgent: string | undefined;
  /** The agent picked; null for the default. */
  value: ProviderId | null;
  onChange(provider: ProviderId | null): void;
}

interface AgentOption {
  id: ProviderId | null;
  label: string;
  /** Why it starts from a summary; null for the same agent. */
  why: string | null;
}

/** The options for `entry`: its default, then its other agents. */
function agentOptions(entry: EligibilityView, sessionAgent: string | undefined): AgentOption[] {
  const summary = (id: ProviderId) => ({
    label: `Continue with ${agentLabel(id)}: a summary continuation`,
    why: sessionAgent ? summaryReason(sessionAgent, id) : `${agentLabel(id)} starts from a summary of the session.`,
  });
  const first: AgentOption = entry.continueWith
    ? { id: null, ...summary(entry.continueWith) }
    : { id: null, label: `Continue with ${sessionAgent ? agentLabel(sessionAgent) : 'the same agent'} (the same session)`, why: null };
  return [first, ...entry.otherAgents.map((id) => ({ id, ...summary(id) }))];
}

/** Radios for which agent continues on the chosen target; nothing when it has no other agent. */
export function MoveAgentChoice({ entry, sessionAgent, value, onChange }: MoveAgentChoiceProps) {
  const groupId = useId();
  if (entry.otherAgents.length === 0) return null;
  return (
    <fieldset className="device-choices" aria-labelledby={groupId}>
      <legend id={groupId} className="field-label">
        Agent on {entry.name}
      </legend>
      {agentOptions(entry, sessionAgent).map((option) => {
        const inputId = `${groupId}-${option.id ?? 'default'}`;
        return (
          <div key={inputId} className="device-choice">
            <input
              type="radio"
              id={inputId}
              name={`${groupId}-agent`}
              checked={value === option.id}
              aria-describedby={option.why === null ? undefined : `${inputId}-why`}
              onChange={() => onChange(option.id)}
            />
            <label htmlFor={inputId} className="device-choice-name">
              {option.label}
            </label>
            {option.why !== null && (
              <span id={`${inputId}-why`} className="device-choice-reason device-choice-reason--warning">
                {option.why}
              </span>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
