/**
 * The built-in demo agent: offline, no account. Each prompt is a short real turn in which two
 * subagents run and finish; the answer names what it did. It writes to the workspace only when a
 * message asks it to "edit a file" (one file: notes/demo-agent.md), and only when the session's
 * permission level lets it edit: at "Ask before editing" it cannot ask, so it refuses and says so.
 * Its whole state travels in exportResumeData, so it supports checkpoint import.
 */
import { mkdir, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { TranscriptEntrySchema, type AgentView, type TranscriptEntry } from '../../shared/agents.ts';
import {
  DEFAULT_PERMISSION_LEVEL,
  PERMISSION_LABELS,
  PROVIDER_CAPABILITIES,
  type PermissionLevel,
  type ProviderEventListener,
  type ProviderResult,
  type ProviderSession,
  type ResumeData,
} from '../../shared/provider.ts';
import { SessionState, type Clock } from './session-state.ts';
import { realTimers, TimerGroup, type Timers } from './timers.ts';

export const DEMO_FORMAT = 'demo/state@1';
export const DEMO_EDIT_PATH = 'notes/demo-agent.md';
const MAIN = 'main';

export interface DemoAgentOptions {
  /** Length of one turn; the two subagents finish at 40% and 70% of it. Default 300 ms. */
  turnMs?: number;
  clock?: Clock;
  timers?: Timers;
  /** The session's permission level: at `ask` the agent refuses to edit (default: edit in the workspace). */
  permission?: PermissionLevel;
  /** The device's name, as the agent's notes in the transcript (seen on every device) name it. */
  deviceName?: string;
}

const agentSchema = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  role: z.string(),
  status: z.enum(['starting', 'running', 'waiting', 'done', 'failed', 'interrupted']),
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

  constructor(options: DemoAgentOptions = {}) {
    this.turnMs = options.turnMs ?? 300;
    this.permission = options.permission ?? DEFAULT_PERMISSION_LEVEL;
    this.deviceName = options.deviceName ?? 'this device';
    this.state = new SessionState(options.clock ?? Date.now, 'demo');
    this.turnTimers = new TimerGroup(options.timers ?? realTimers);
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
  async send(text: string): Promise<ProviderResult> {
    if (this.stopped) return { ok: false, code: 'stopped', message: 'The demo agent was stopped.' };
    if (this.workspace === null) return { ok: false, code: 'not_started', message: 'Start the demo agent first.' };
    this.queue.push(text);
    if (!this.state.turnActive) this.runNextTurn();
    return { ok: true, value: undefined };
  }

  /** Ends the running turn: running subagents become interrupted; queued input is dropped. */
  async interrupt(): Promise<void> {
    if (!this.state.turnActive) return;
    this.turnTimers.clear();
    this.queue = [];
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
      a.status === 'running' || a.status === 'starting' ? { ...a, status: 'interrupted' as const } : a,
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
    this.turnTimers.after(this.turnMs, () => void this.completeTurn(text, turn));
  }

  private async completeTurn(text: string, turn: number): Promise<void> {
    let edit = 'I did not touch the repository.';
    if (asksForEdit(text) && this.permission === 'ask') {
      edit = `I did not edit ${DEMO_EDIT_PATH}: editing was refused.`;
      this.state.addEntry(
        'system',
        MAIN,
        `Permission refused: the demo agent may not edit files in this session ("${PERMISSION_LABELS.ask}") and cannot ask.`,
      );
    } else if (asksForEdit(text) && this.workspace !== null) {
      edit = await this.editFile(this.workspace, text, turn);
    }
    if (this.stopped || this.turn !== turn || !this.state.turnActive) return;
    const quoted = text.length > 120 ? `${text.slice(0, 117)}...` : text;
    this.state.addEntry(
      'assistant',
      MAIN,
      `Demo agent, turn ${turn}: I read your message ("${quoted.replace(/\s+/g, ' ')}"). ` +
        `Reader ${turn} and Checker ${turn} ran and finished. ${edit}`,
    );
    this.state.setStatus(MAIN, 'waiting');
    this.finishTurn(false);
  }

  private async editFile(workspace: string, text: string, turn: number): Promise<string> {
    try {
      await mkdir(join(workspace, 'notes'), { recursive: true });
      const line = text.split('\n')[0]?.slice(0, 200) ?? '';
      await appendFile(join(workspace, DEMO_EDIT_PATH), `- Turn ${turn}: ${line}\n`);
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
