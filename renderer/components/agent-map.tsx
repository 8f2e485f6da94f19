/** The agent map: every agent with its name, role and live status; subagents under their parent. */
import { useId } from 'react';
import type { AgentStatus, AgentView } from '../../shared/agents.ts';

const STATUS_LABEL: Record<AgentStatus, string> = {
  starting: 'starting',
  running: 'running',
  asking: 'waiting for you',
  waiting: 'waiting',
  done: 'done',
  failed: 'failed',
  interrupted: 'interrupted',
};

function AgentTree({ agents, parentId, known }: { agents: AgentView[]; parentId: string | null; known: Set<string> }) {
  const children = agents.filter((agent) =>
    parentId === null ? agent.parentId === null || !known.has(agent.parentId) : agent.parentId === parentId,
  );
  if (children.length === 0) return null;
  return (
    <ul className={parentId === null ? 'agent-tree' : 'agent-tree agent-tree--nested'}>
      {children.map((agent) => (
        <li key={agent.id} className="agent-item">
          <div className="agent-row">
            <span className={`status-dot status-dot--${agent.status}`} aria-hidden="true" />
            <span className="agent-name">{agent.name}</span>
            <span className="agent-role">{agent.role}</span>
            <span className={`agent-status agent-status--${agent.status}`}>{STATUS_LABEL[agent.status]}</span>
          </div>
          <AgentTree agents={agents} parentId={agent.id} known={known} />
        </li>
      ))}
    </ul>
  );
}

/** Renders the `region` "Agent map". */
export function AgentMap({ agents }: { agents: AgentView[] }) {
  const headingId = useId();
  const known = new Set(agents.map((agent) => agent.id));
  return (
    <section className="panel agent-map" aria-labelledby={headingId}>
      <h2 id={headingId} className="panel-title">
        Agent map
      </h2>
      {agents.length === 0 ? (
        <p className="muted empty">No agents are running yet.</p>
      ) : (
        <AgentTree agents={agents} parentId={null} known={known} />
      )}
    </section>
  );
}
