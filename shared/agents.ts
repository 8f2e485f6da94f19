/** What a running session shows: its agents (the agent map) and its transcript. */
import { z } from 'zod';

/** `asking`: the agent waits for an answer to its permission request (shown as "waiting for you"). */
export type AgentStatus = 'starting' | 'running' | 'asking' | 'waiting' | 'done' | 'failed' | 'interrupted';

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

/** A transcript entry as read from outside (a checkpoint, a provider's exported state): the shape above, checked. */
export const TranscriptEntrySchema = z.object({
  id: z.string(),
  at: z.number(),
  role: z.enum(['user', 'assistant', 'tool', 'system']),
  agentId: z.string(),
  text: z.string(),
}) satisfies z.ZodType<TranscriptEntry>;
