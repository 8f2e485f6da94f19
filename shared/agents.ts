/** What a running session shows: its agents (the agent map) and its transcript. */

export type AgentStatus = 'starting' | 'running' | 'waiting' | 'done' | 'failed' | 'interrupted';

export interface AgentView {
  id: string;
  /** The agent that started this one; null for the main agent. */
  parentId: string | null;
  name: string;
  /** e.g. "main", "subagent", or the role a Task call gave it. */
  role: string;
  status: AgentStatus;
  lastActivityAt: number;
}

export type TranscriptRole = 'user' | 'assistant' | 'tool' | 'system';

export interface TranscriptEntry {
  id: string;
  at: number;
  role: TranscriptRole;
  /** The agent that produced the entry. */
  agentId: string;
  text: string;
}
