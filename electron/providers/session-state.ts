/**
 * The state every adapter keeps the same way: listeners, the agent map, the transcript and the
 * turn flag. Adapters call its methods; it emits the matching ProviderEvent for each change.
 *
 * A turn has caps (an agent process is not trusted to be sane: one printed 760,000 entries in 15 s):
 * TURN_ENTRIES_MAX transcript entries holding at most TURN_TEXT_MAX characters, and TURN_ASKS_MAX
 * permission requests. The first entry or request past a cap is dropped, and so is every one after it
 * in that turn; `onTurnCap` is told once, with a sentence, and the adapter's lifecycle stops the turn.
 * Baton's own notes (`note`) pass.
 */
import { randomBytes } from 'node:crypto';
import type { AgentStatus, AgentView, TranscriptEntry, TranscriptRole } from '../../shared/agents.ts';
import type { ProviderEvent, ProviderEventListener } from '../../shared/provider.ts';

export type Clock = () => number;

/** The most transcript entries one turn adds (a long turn of hundreds of tool calls stays far below). */
export const TURN_ENTRIES_MAX = 5_000;
/** The most characters the entries of one turn hold. */
export const TURN_TEXT_MAX = 4 * 1024 * 1024;
/** The most permission requests one turn asks. */
export const TURN_ASKS_MAX = 200;
/** The longest text one entry keeps: the rest is cut, saying so. */
export const ENTRY_TEXT_MAX = 64 * 1024;

/** What this turn has added so far, against the caps. */
interface TurnCount {
  entries: number;
  text: number;
  asks: number;
  /** Set once a cap was passed: the rest of the turn is dropped. */
  capped: boolean;
}

const freshCount = (): TurnCount => ({ entries: 0, text: 0, asks: 0, capped: false });

export class SessionState {
  private readonly listeners = new Set<ProviderEventListener>();
  private readonly agents = new Map<string, AgentView>();
  private readonly entries: TranscriptEntry[] = [];
  private entrySeq = 0;
  /** Makes entry ids unique across devices: a session resumed elsewhere numbers on from its own history. */
  private readonly instance = randomBytes(4).toString('hex');
  turnActive = false;
  /** Told once per turn when the turn passed a cap (see the header), with the sentence to say after the agent's name. */
  onTurnCap: ((why: string) => void) | null = null;
  private count = freshCount();

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

  /** Appends a transcript entry with a fresh id and reports it; within a turn, only while the turn is within its caps. */
  addEntry(role: TranscriptRole, agentId: string, text: string, at = this.now()): TranscriptEntry | null {
    const kept = text.length <= ENTRY_TEXT_MAX ? text : `${text.slice(0, ENTRY_TEXT_MAX - 30)}… (the rest is not shown)`;
    if (this.turnActive && !this.admit('entries', kept.length)) return null;
    return this.add(role, agentId, kept, at);
  }

  /** Appends a note of Baton's own (a system entry), whatever the turn's caps. */
  note(agentId: string, text: string): TranscriptEntry {
    return this.add('system', agentId, text, this.now());
  }

  /** Whether the turn may ask one more permission request (false past the cap: it is dropped, and the turn stops). */
  admitAsk(): boolean {
    return !this.turnActive || this.admit('asks', 0);
  }

  /** Counts one more entry (of `chars`) or request against the turn's caps; false, and the cap told once, past one. */
  private admit(what: 'entries' | 'asks', chars: number): boolean {
    const count = this.count;
    if (count.capped) return false;
    if (what === 'asks') count.asks += 1;
    else {
      count.entries += 1;
      count.text += chars;
    }
    const why =
      count.asks > TURN_ASKS_MAX
        ? `asked more than ${TURN_ASKS_MAX} permission requests in one turn`
        : count.entries > TURN_ENTRIES_MAX
          ? `wrote more than ${TURN_ENTRIES_MAX} transcript entries in one turn`
          : count.text > TURN_TEXT_MAX
            ? `wrote more than ${Math.round(TURN_TEXT_MAX / (1024 * 1024))} MiB of transcript in one turn`
            : null;
    if (why === null) return true;
    count.capped = true;
    this.onTurnCap?.(`${why}, so Baton stopped the turn (what came after is not kept); send a message to go on`);
    return false;
  }

  private add(role: TranscriptRole, agentId: string, text: string, at: number): TranscriptEntry {
    this.entrySeq += 1;
    const entry: TranscriptEntry = { id: `${this.entryPrefix}-${this.instance}-${this.entrySeq}`, at, role, agentId, text };
    if (this.keepEntries) this.entries.push(entry);
    this.emit({ type: 'transcript', entry });
    this.touch(agentId);
    return entry;
  }

  /** Marks the start of a turn (once); its caps count from here. */
  beginTurn(): void {
    if (this.turnActive) return;
    this.turnActive = true;
    this.count = freshCount();
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
