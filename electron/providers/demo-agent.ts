/**
 * The built-in demo agent: offline, no account. Each prompt is a short real turn in which two
 * subagents run and finish; the answer names what it did. It writes to the workspace only when a
 * message asks it to "edit a file" (one file: notes/demo-agent.md), and asks first at "Ask before
 * edits and commands"; a message that asks it to "run a command" makes it ask to run `npm test`
 * (at every level but Full access) — which it only pretends to run — so the offline demo shows a
 * permission request. Its whole state travels in exportResumeData, so it supports checkpoint import.
 */
import { mkdir, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { TranscriptEntrySchema, type AgentView, type TranscriptEntry } from '../../shared/agents.ts';
import type { PermissionAnswer, PermissionRequest } from '../../shared/permission-request.ts';
import {
  DEFAULT_PERMISSION_LEVEL,
  PROVIDER_CAPABILITIES,
  type PermissionLevel,
  type ProviderEventListener,
  type ProviderResult,
  type ProviderSession,
  type ResumeData,
} from '../../shared/provider.ts';
import { writeDiff, currentText } from './permissions/file-change-diff.ts';
import { PendingAsks } from './permissions/pending-asks.ts';
import { SessionState, type Clock } from './session-state.ts';
import { realTimers, TimerGroup, type Timers } from './timers.ts';

export const DEMO_FORMAT = 'demo/state@1';
export const DEMO_EDIT_PATH = 'notes/demo-agent.md';
/** The command the demo agent asks to run (and only pretends to). */
export const DEMO_COMMAND = 'npm test';
const MAIN = 'main';

export interface DemoAgentOptions {
  /** Length of one turn; the two subagents finish at 40% and 70% of it. Default 300 ms. */
  turnMs?: number;
  clock?: Clock;
  timers?: Timers;
  /** The session's permission level: at `ask` it asks before editing; below Full access, before a command. */
  permission?: PermissionLevel;
  /** The device's name, as the agent's notes in the transcript (seen on every device) name it. */
  deviceName?: string;
}

const agentSchema = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  role: z.string(),
  status: z.enum(['starting', 'running', 'asking', 'waiting', 'done', 'failed', 'interrupted']),
  lastActivityAt: z.number(),
});
const payloadSchema = z.object({
  turn: z.number().int().min(0),
  entrySeq: z.number().int().min(0),
  agents: z.array(agentSchema),
  transcript: z.array(TranscriptEntrySchema),
  queue: z.array(z.string()),
});
type DemoPayload = z.infer<typeof payloadSchema>;

/** True when a message asks the demo agent to change the repository. */
export function asksForEdit(text: string): boolean {
  return /edit a file/i.test(text);
}

/** True when a message asks the demo agent to run a command. */
export function asksForCommand(text: string): boolean {
  return /run a command/i.test(text);
}

export class DemoAgent implements ProviderSession {
  readonly provider = 'demo' as const;
  readonly capabilities = PROVIDER_CAPABILITIES.demo;
  private readonly state: SessionState;
  private readonly turnTimers: TimerGroup;
  private readonly turnMs: number;
  private readonly permission: PermissionLevel;
  private readonly deviceName: string;
  private workspace: string | null = null;
  private stopped = false;
  private turn = 0;
  private queue: string[] = [];
  /** Baton's notes, by the index in `queue` of the input they come with. */
  private notes = new Map<number, string>();
  private readonly asks: PendingAsks<(answer: PermissionAnswer) => void>;
  private askSeq = 0;

  constructor(options: DemoAgentOptions = {}) {
    this.turnMs = options.turnMs ?? 300;
    this.permission = options.permission ?? DEFAULT_PERMISSION_LEVEL;
    this.deviceName = options.deviceName ?? 'this device';
    this.state = new SessionState(options.clock ?? Date.now, 'demo');
    this.turnTimers = new TimerGroup(options.timers ?? realTimers);
    this.asks = new PendingAsks(this.state);
  }

  /** Answers the demo agent's pending request `requestId`; its turn goes on with the answer. */
  async answerPermission(requestId: string, answer: PermissionAnswer): Promise<ProviderResult> {
    const resume = this.asks.take(requestId);
    if (resume === undefined) return { ok: false, code: 'request_not_pending', message: `The demo agent is not waiting for ${requestId}.` };
    resume(answer);
    return { ok: true, value: undefined };
  }

  /** Starts the session in `workspace`: the main agent appears and the first turn runs. */
  async start(workspace: string, prompt: string): Promise<ProviderResult> {
    if (this.stopped) return { ok: false, code: 'stopped', message: 'The demo agent was stopped.' };
    if (this.workspace !== null) return { ok: false, code: 'already_started', message: 'The demo agent is already running.' };
    this.workspace = workspace;
    this.state.upsertAgent({ id: MAIN, parentId: null, name: 'Demo agent', role: 'main', status: 'waiting' });
    return this.send(prompt);
  }

  /** Queues the message; it runs now when no turn is active. */
  async send(text: string, agentNote?: string): Promise<ProviderResult> {
    if (this.stopped) return { ok: false, code: 'stopped', message: 'The demo agent was stopped.' };
    if (this.workspace === null) return { ok: false, code: 'not_started', message: 'Start the demo agent first.' };
    // Baton's note (after a move) is read with the next message: the reply says what it was told.
    if (agentNote !== undefined) this.notes.set(this.queue.length, agentNote);
    this.queue.push(text);
    if (!this.state.turnActive) this.runNextTurn();
    return { ok: true, value: undefined };
  }

  /** Ends the running turn: running subagents become interrupted; queued input is dropped. */
  async interrupt(): Promise<void> {
    if (!this.state.turnActive) return;
    this.turnTimers.clear();
    this.queue = [];
    this.notes.clear();
    this.dropAsks('The turn was interrupted.');
    this.state.settleRunning('interrupted', MAIN);
    this.state.setStatus(MAIN, 'waiting');
    this.state.addEntry('system', MAIN, 'Interrupted: the demo agent stopped this turn.');
    this.finishTurn(true);
  }

  onEvent(listener: ProviderEventListener): () => void {
    return this.state.subscribe(listener);
  }

  isTurnActive(): boolean {
    return this.state.turnActive || this.queue.length > 0;
  }

  snapshot(): { agents: AgentView[]; transcript: TranscriptEntry[] } {
    return this.state.snapshot();
  }

  /** Exports the whole state: transcript, agents, counters and queued input. */
  async exportResumeData(): Promise<ProviderResult<ResumeData>> {
    if (this.workspace === null) return { ok: false, code: 'not_started', message: 'Nothing to export: the demo agent never started.' };
    const { agents, transcript } = this.state.snapshot();
    const payload: DemoPayload = { turn: this.turn, entrySeq: this.state.sequence, agents, transcript, queue: [...this.queue] };
    return { ok: true, value: { provider: 'demo', format: DEMO_FORMAT, sessionId: null, payload } };
  }

  /** Restores an exported state in `workspace`; agents caught mid-turn come back interrupted. */
  async resumeFromImport(data: ResumeData, workspace: string): Promise<ProviderResult> {
    if (this.stopped) return { ok: false, code: 'stopped', message: 'The demo agent was stopped.' };
    if (this.workspace !== null) return { ok: false, code: 'already_started', message: 'The demo agent is already running.' };
    if (data.provider !== 'demo' || data.format !== DEMO_FORMAT) {
      return {
        ok: false,
        code: 'import_check_failed',
        message: `The demo agent cannot import "${data.provider}" data of format "${data.format}".`,
      };
    }
    const parsed = payloadSchema.safeParse(data.payload);
    if (!parsed.success) {
      return {
        ok: false,
        code: 'import_check_failed',
        message: `The demo agent's exported state is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}.`,
      };
    }
    const saved = parsed.data;
    this.workspace = workspace;
    this.turn = saved.turn;
    const agents = saved.agents.map((a) =>
      a.status === 'running' || a.status === 'starting' || a.status === 'asking' ? { ...a, status: 'interrupted' as const } : a,
    );
    this.state.restore(agents, saved.transcript, saved.entrySeq);
    if (!this.state.agent(MAIN)) this.state.upsertAgent({ id: MAIN, parentId: null, name: 'Demo agent', role: 'main', status: 'waiting' });
    this.state.setStatus(MAIN, 'waiting');
    this.state.addEntry('system', MAIN, `The demo agent resumed on ${this.deviceName} from the checkpoint (its full state was imported).`);
    this.queue = [...saved.queue];
    if (this.queue.length > 0) this.runNextTurn();
    return { ok: true, value: undefined };
  }

  /** Starts a fresh session whose first turn is the continuation prompt. */
  async resumeFromSummary(prompt: string, workspace: string): Promise<ProviderResult> {
    return this.start(workspace, prompt);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.turnTimers.clear();
    this.queue = [];
    this.dropAsks('The demo agent was stopped.');
    if (this.state.turnActive) {
      this.state.settleRunning('interrupted');
      this.finishTurn(true);
    }
    this.stopped = true;
    this.state.emit({ type: 'exited', at: this.state.now(), error: null });
  }

  private runNextTurn(): void {
    const text = this.queue.shift();
    if (text === undefined || this.stopped) return;
    const note = this.notes.get(0);
    this.notes = new Map([...this.notes].filter(([i]) => i > 0).map(([i, n]) => [i - 1, n]));
    this.turn += 1;
    const turn = this.turn;
    this.state.beginTurn();
    this.state.addEntry('user', MAIN, text);
    this.state.setStatus(MAIN, 'running');
    const helpers = [
      { id: `reader-${turn}`, name: `Reader ${turn}`, at: 0.4 },
      { id: `checker-${turn}`, name: `Checker ${turn}`, at: 0.7 },
    ];
    for (const helper of helpers) {
      this.state.upsertAgent({ id: helper.id, parentId: MAIN, name: helper.name, role: 'subagent', status: 'running' });
      this.turnTimers.after(Math.round(this.turnMs * helper.at), () => this.state.setStatus(helper.id, 'done'));
    }
    this.turnTimers.after(this.turnMs, () => void this.completeTurn(text, turn, note));
  }

  private async completeTurn(text: string, turn: number, note?: string): Promise<void> {
    const did: string[] = [];
    if (asksForEdit(text) && this.workspace !== null) did.push(await this.maybeEdit(this.workspace, text, turn));
    if (asksForCommand(text) && this.current(turn)) did.push(await this.maybeRun());
    if (!this.current(turn)) return;
    if (did.length === 0) did.push('I did not touch the repository.');
    const quoted = text.length > 120 ? `${text.slice(0, 117)}...` : text;
    this.state.addEntry(
      'assistant',
      MAIN,
      `Demo agent, turn ${turn}: I read your message ("${quoted.replace(/\s+/g, ' ')}"). ` +
        `Reader ${turn} and Checker ${turn} ran and finished. ${did.join(' ')}` +
        (note === undefined ? '' : ` Baton told me: "${note}"`),
    );
    this.state.setStatus(MAIN, 'waiting');
    this.finishTurn(false);
  }

  /** Whether turn `turn` still runs (not interrupted, stopped or overtaken). */
  private current(turn: number): boolean {
    return !this.stopped && this.turn === turn && this.state.turnActive;
  }

  /** Asks the user (the turn waits for the answer); an interrupt or a stop answers deny. */
  private ask(request: Omit<PermissionRequest, 'id' | 'agent'>): Promise<PermissionAnswer> {
    this.askSeq += 1;
    const id = `demo-ask-${this.askSeq}`;
    return new Promise((resolve) => this.asks.add({ ...request, id, agent: MAIN }, resolve));
  }

  private dropAsks(reason: string): void {
    for (const resume of this.asks.cancelAll(reason)) resume({ decision: 'deny', message: reason });
  }

  /** Edits the notes file, asking first at `ask`. */
  private async maybeEdit(workspace: string, text: string, turn: number): Promise<string> {
    const path = join(workspace, DEMO_EDIT_PATH);
    const line = `- Turn ${turn}: ${text.split('\n')[0]?.slice(0, 200) ?? ''}\n`;
    if (this.permission === 'ask') {
      const now = await currentText(path, workspace);
      const diff = await writeDiff(path, `${'text' in now ? now.text : ''}${line}`, workspace);
      const answer = await this.ask({ tool: 'Edit', path, diff });
      if (answer.decision === 'deny') return `I did not edit ${DEMO_EDIT_PATH}: you said no${said(answer)}.`;
    }
    if (!this.current(turn)) return '';
    return this.editFile(workspace, line);
  }

  /** "Runs" the demo command, asking first below Full access; nothing really runs. */
  private async maybeRun(): Promise<string> {
    if (this.permission !== 'full') {
      const answer = await this.ask({ tool: 'Bash', command: DEMO_COMMAND, reason: 'The demo agent asks before every command.' });
      if (answer.decision === 'deny') return `I did not run \`${DEMO_COMMAND}\`: you said no${said(answer)}.`;
    }
    return `I ran \`${DEMO_COMMAND}\` (the demo agent only pretends: nothing ran).`;
  }

  private async editFile(workspace: string, line: string): Promise<string> {
    try {
      await mkdir(join(workspace, 'notes'), { recursive: true });
      await appendFile(join(workspace, DEMO_EDIT_PATH), line);
      return `As asked, I edited one file: ${DEMO_EDIT_PATH}.`;
    } catch (error) {
      return `I tried to edit ${DEMO_EDIT_PATH} but could not: ${(error as Error).message}.`;
    }
  }

  private finishTurn(interrupted: boolean): void {
    this.state.endTurn(interrupted);
    if (!interrupted && this.queue.length > 0) this.runNextTurn();
  }
}

/** ` ("message")` when a deny carried a message, else nothing. */
function said(answer: PermissionAnswer): string {
  const message = answer.message?.trim() ?? '';
  return message === '' ? '' : ` ("${message}")`;
}
