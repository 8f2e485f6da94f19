/**
 * The state every adapter keeps the same way: listeners, the agent map, the transcript and the
 * turn flag. Adapters call its methods; it emits the matching ProviderEvent for each change.
 */
import { randomBytes } from 'node:crypto';
import type { AgentStatus, AgentView, TranscriptEntry, TranscriptRole } from '../../shared/agents.ts';
import type { ProviderEvent, ProviderEventListener } from '../../shared/provider.ts';

export type Clock = () => number;

export class SessionState {
  private readonly listeners = new Set<ProviderEventListener>();
  private readonly agents = new Map<string, AgentView>();
  private readonly entries: TranscriptEntry[] = [];
  private entrySeq = 0;
  /** Makes entry ids unique across devices: a session resumed elsewhere numbers on from its own history. */
  private readonly instance = randomBytes(4).toString('hex');
  turnActive = false;

  /** `keepEntries` false: entries are reported but not kept (a pass that only needs the agent map). */
  constructor(
    readonly now: Clock,
    private readonly entryPrefix: string,
    private readonly keepEntries = true,
  ) {}

  /** Subscribes to events; returns the unsubscribe function. */
  subscribe(listener: ProviderEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Delivers one event to every listener; a throwing listener does not stop the others. */
  emit(event: ProviderEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the session goes on.
      }
    }
  }

  /** Inserts or replaces an agent and reports it. */
  upsertAgent(agent: Omit<AgentView, 'lastActivityAt'> & { lastActivityAt?: number }): AgentView {
    const view: AgentView = { ...agent, lastActivityAt: agent.lastActivityAt ?? this.now() };
    this.agents.set(view.id, view);
    this.emit({ type: 'agent', agent: view });
    return view;
  }

  /** Changes an agent's status (and activity time); unknown ids are ignored. */
  setStatus(id: string, status: AgentStatus): void {
    const agent = this.agents.get(id);
    if (agent) this.upsertAgent({ ...agent, status, lastActivityAt: this.now() });
  }

  /** Marks an agent active now without changing its status. */
  touch(id: string): void {
    const agent = this.agents.get(id);
    if (agent) this.upsertAgent({ ...agent, lastActivityAt: this.now() });
  }

  agent(id: string): AgentView | undefined {
    return this.agents.get(id);
  }

  /** Appends a transcript entry with a fresh id and reports it. */
  addEntry(role: TranscriptRole, agentId: string, text: string, at = this.now()): TranscriptEntry {
    this.entrySeq += 1;
    const entry: TranscriptEntry = { id: `${this.entryPrefix}-${this.instance}-${this.entrySeq}`, at, role, agentId, text };
    if (this.keepEntries) this.entries.push(entry);
    this.emit({ type: 'transcript', entry });
    this.touch(agentId);
    return entry;
  }

  /** Marks the start of a turn (once). */
  beginTurn(): void {
    if (this.turnActive) return;
    this.turnActive = true;
    this.emit({ type: 'turn-started', at: this.now() });
  }

  /** Marks the end of a turn (once). */
  endTurn(interrupted: boolean): void {
    if (!this.turnActive) return;
    this.turnActive = false;
    this.emit({ type: 'turn-ended', at: this.now(), interrupted });
  }

  /** Every agent still running or starting becomes `status` (e.g. at an interrupt). */
  settleRunning(status: AgentStatus, exceptId?: string): void {
    for (const agent of this.agents.values()) {
      if (agent.id !== exceptId && (agent.status === 'running' || agent.status === 'starting')) this.setStatus(agent.id, status);
    }
  }

  /** The agent map and transcript so far (copies). */
  snapshot(): { agents: AgentView[]; transcript: TranscriptEntry[] } {
    return { agents: [...this.agents.values()], transcript: [...this.entries] };
  }

  /**
   * Replaces the whole state (after an import or an adoption). Every agent is reported (upserts are
   * idempotent); the restored transcript is not — the runtime already holds it — only entries added
   * from now on. An import passes no transcript: the history came in the checkpoint.
   */
  restore(agents: AgentView[], transcript: readonly TranscriptEntry[], entrySeq: number): void {
    this.agents.clear();
    this.entries.length = 0;
    // One at a time: spreading a day's transcript into push() overflows the call stack.
    for (const entry of transcript) this.entries.push(entry);
    this.entrySeq = Math.max(entrySeq, transcript.length);
    for (const agent of agents) this.upsertAgent(agent);
  }

  /** The counter behind entry ids, so an export can carry it. */
  get sequence(): number {
    return this.entrySeq;
  }
}
