import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionLevel, ProviderEvent } from '../../shared/provider.ts';
import { checkResumeData } from '../../shared/provider.ts';
import type { PermissionRequest } from '../../shared/permission-request.ts';
import { DEMO_COMMAND, DEMO_EDIT_PATH, DemoAgent } from './demo-agent.ts';
import type { Timers } from './timers.ts';
import { waitForIdle } from './wait-idle.ts';

/** A test clock: callbacks run only when the test advances time. */
class ManualTimers implements Timers {
  now = 0;
  private pending: { at: number; run: () => void; handle: number }[] = [];
  private next = 0;
  setTimeout(run: () => void, ms: number): unknown {
    this.next += 1;
    this.pending.push({ at: this.now + ms, run, handle: this.next });
    return this.next;
  }
  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((p) => p.handle !== handle);
  }
  async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    for (;;) {
      const due = this.pending.filter((p) => p.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.now = due.at;
      due.run();
      await Promise.resolve();
    }
    this.now = until;
  }
}

let dir: string;
const agents: DemoAgent[] = [];

/** The permission requests `agent` reports, as they come. */
function requests(agent: DemoAgent): PermissionRequest[] {
  const asked: PermissionRequest[] = [];
  agent.onEvent((event) => {
    if (event.type === 'permission-request') asked.push(event.request);
  });
  return asked;
}

/** Resolves once `done()` holds (checked every 5 ms, for 2 s at most). */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 2000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function demo(permission?: PermissionLevel, deviceName?: string): DemoAgent {
  const agent = new DemoAgent({ turnMs: 40, permission, ...(deviceName ? { deviceName } : {}) });
  agents.push(agent);
  return agent;
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-demo-'));
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('demo agent', () => {
  it('answers a message and says what it did', async () => {
    const agent = demo();
    expect((await agent.start(dir, 'hello there')).ok).toBe(true);
    expect(agent.isTurnActive()).toBe(true);
    expect(await waitForIdle(agent, 2000)).toBe(true);
    const { transcript } = agent.snapshot();
    expect(transcript.map((e) => e.role)).toEqual(['user', 'assistant']);
    expect(transcript[1]?.text).toContain('hello there');
    expect(transcript[1]?.text).toContain('did not touch the repository');
  });

  it('starts two subagents under the main agent whose status moves running to done', async () => {
    const agent = demo();
    const events: ProviderEvent[] = [];
    agent.onEvent((e) => events.push(e));
    await agent.start(dir, 'look around');
    await waitForIdle(agent, 2000);
    const subs = agent.snapshot().agents.filter((a) => a.parentId === 'main');
    expect(subs).toHaveLength(2);
    for (const sub of subs) {
      const statuses = events.flatMap((e) => (e.type === 'agent' && e.agent.id === sub.id ? [e.agent.status] : []));
      expect(statuses[0]).toBe('running');
      expect(statuses.at(-1)).toBe('done');
    }
    expect(events.filter((e) => e.type === 'turn-started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'turn-ended')).toHaveLength(1);
  });

  it('runs on injected timers: subagents and the turn finish only as the clock advances', async () => {
    const timers = new ManualTimers();
    const agent = new DemoAgent({ turnMs: 300, timers, clock: () => timers.now });
    agents.push(agent);
    await agent.start(dir, 'tick');
    const statuses = (): string[] =>
      agent
        .snapshot()
        .agents.filter((a) => a.parentId === 'main')
        .map((a) => a.status);
    expect(statuses()).toEqual(['running', 'running']);
    await timers.advance(150);
    expect(statuses()).toEqual(['done', 'running']);
    expect(agent.isTurnActive()).toBe(true);
    await timers.advance(150);
    expect(statuses()).toEqual(['done', 'done']);
    expect(agent.isTurnActive()).toBe(false);
    expect(agent.snapshot().transcript.at(-1)?.at).toBe(300);
  });

  it('never touches the workspace unless asked', async () => {
    const agent = demo();
    await agent.start(dir, 'please summarise the repo');
    await waitForIdle(agent, 2000);
    expect(await listFiles(dir)).toEqual([]);
  });

  it('changes exactly one file when a message says "edit a file"', async () => {
    const agent = demo();
    await agent.start(dir, 'hi');
    await waitForIdle(agent, 2000);
    await agent.send('Please edit a file for me');
    await waitForIdle(agent, 2000);
    expect(await listFiles(dir)).toEqual([DEMO_EDIT_PATH]);
    expect(await readFile(join(dir, DEMO_EDIT_PATH), 'utf8')).toContain('edit a file');
    expect(agent.snapshot().transcript.at(-1)?.text).toContain(DEMO_EDIT_PATH);
  });

  it('asks before editing at "Ask before edits and commands", with the file and its diff; a deny touches nothing', async () => {
    const agent = demo('ask');
    const asked = requests(agent);
    await agent.start(dir, 'Please edit a file for me');
    await until(() => asked.length === 1);
    const path = join(dir, DEMO_EDIT_PATH);
    expect(asked[0]).toMatchObject({ id: 'demo-ask-1', agent: 'main', tool: 'Edit', path });
    expect(asked[0]?.diff).toContain('+- Turn 1: Please edit a file for me');
    expect(agent.isTurnActive()).toBe(true);
    expect(await agent.answerPermission('demo-ask-1', { decision: 'deny', message: 'not yet' })).toEqual({ ok: true, value: undefined });
    await waitForIdle(agent, 2000);
    expect(await listFiles(dir)).toEqual([]);
    expect(agent.snapshot().transcript.at(-1)?.text).toContain(`I did not edit ${DEMO_EDIT_PATH}: you said no ("not yet").`);
    expect(await agent.answerPermission('demo-ask-1', { decision: 'allow' })).toMatchObject({ ok: false, code: 'request_not_pending' });

    await agent.send('edit a file again');
    await until(() => asked.length === 2);
    await agent.answerPermission(asked[1]!.id, { decision: 'allow' });
    await waitForIdle(agent, 2000);
    expect(await listFiles(dir)).toEqual([DEMO_EDIT_PATH]);
  });

  it('asks before running a command below Full access, never at Full access', async () => {
    const agent = demo('workspace');
    const asked = requests(agent);
    await agent.start(dir, 'run a command');
    await until(() => asked.length === 1);
    expect(asked[0]).toMatchObject({ tool: 'Bash', command: DEMO_COMMAND });
    await agent.answerPermission(asked[0]!.id, { decision: 'allow' });
    await waitForIdle(agent, 2000);
    expect(agent.snapshot().transcript.at(-1)?.text).toContain(`I ran \`${DEMO_COMMAND}\``);

    const full = demo('full');
    const none = requests(full);
    await full.start(dir, 'run a command');
    await waitForIdle(full, 2000);
    expect(none).toEqual([]);
  });

  it('an interrupt while it asks denies the request and ends the turn', async () => {
    const agent = demo('ask');
    const events: ProviderEvent[] = [];
    agent.onEvent((event) => events.push(event));
    await agent.start(dir, 'edit a file');
    await until(() => events.some((e) => e.type === 'permission-request'));
    await agent.interrupt();
    expect(agent.isTurnActive()).toBe(false);
    expect(events.find((e) => e.type === 'permission-cancelled')).toEqual({
      type: 'permission-cancelled',
      requestId: 'demo-ask-1',
      reason: 'The turn was interrupted.',
    });
    expect(await listFiles(dir)).toEqual([]);
  });

  it('edits at "Full access" as at the default level', async () => {
    const agent = demo('full');
    await agent.start(dir, 'edit a file');
    await waitForIdle(agent, 2000);
    expect(await listFiles(dir)).toEqual([DEMO_EDIT_PATH]);
  });

  it('queues input sent during a turn and runs it next', async () => {
    const agent = demo();
    await agent.start(dir, 'first');
    await agent.send('second');
    await waitForIdle(agent, 2000);
    const users = agent
      .snapshot()
      .transcript.filter((e) => e.role === 'user')
      .map((e) => e.text);
    expect(users).toEqual(['first', 'second']);
    expect(agent.snapshot().transcript.filter((e) => e.role === 'assistant')).toHaveLength(2);
  });

  it('interrupt ends the turn at once and marks running subagents interrupted', async () => {
    const agent = new DemoAgent({ turnMs: 5000 });
    agents.push(agent);
    await agent.start(dir, 'long job');
    const ended = new Promise<ProviderEvent>((resolve) => agent.onEvent((e) => e.type === 'turn-ended' && resolve(e)));
    await agent.interrupt();
    expect(await ended).toMatchObject({ type: 'turn-ended', interrupted: true });
    expect(agent.isTurnActive()).toBe(false);
    expect(
      agent
        .snapshot()
        .agents.filter((a) => a.parentId === 'main')
        .map((a) => a.status),
    ).toEqual(['interrupted', 'interrupted']);
  });

  it('exports its whole state and a new agent in another workspace resumes it', async () => {
    const source = demo();
    await source.start(dir, 'one');
    await waitForIdle(source, 2000);
    const exported = await source.exportResumeData();
    if (!exported.ok) throw new Error(exported.message);
    const carried = checkResumeData(JSON.parse(JSON.stringify(exported.value)));
    if (!carried.ok) throw new Error(carried.message);

    const target = demo(undefined, 'desktop');
    const other = await mkdtemp(join(tmpdir(), 'baton-demo-target-'));
    try {
      const events: ProviderEvent[] = [];
      target.onEvent((e) => events.push(e));
      expect(await target.resumeFromImport(carried.value, other)).toEqual({ ok: true, value: undefined });
      expect(events.filter((e) => e.type === 'transcript')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'agent').length).toBeGreaterThanOrEqual(3);
      const before = source.snapshot();
      const after = target.snapshot();
      expect(after.transcript.slice(0, before.transcript.length)).toEqual(before.transcript);
      expect(after.transcript.at(-1)?.text).toBe('The demo agent resumed on desktop from the checkpoint (its full state was imported).');
      expect(after.agents.map((a) => a.id).sort()).toEqual(before.agents.map((a) => a.id).sort());
      await target.send('two');
      await waitForIdle(target, 2000);
      expect(target.snapshot().transcript.at(-1)?.text).toContain('turn 2');
      const ids = target.snapshot().transcript.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('refuses data of another format with import_check_failed', async () => {
    const agent = demo();
    const result = await agent.resumeFromImport({ provider: 'demo', format: 'demo/state@0', sessionId: null, payload: {} }, dir);
    expect(result).toMatchObject({ ok: false, code: 'import_check_failed' });
    expect(agent.snapshot().agents).toEqual([]);
  });

  it('reports exited on stop and refuses input afterwards', async () => {
    const agent = demo();
    const events: ProviderEvent[] = [];
    agent.onEvent((e) => events.push(e));
    await agent.start(dir, 'x');
    await agent.stop();
    expect(events.at(-1)).toMatchObject({ type: 'exited', error: null });
    expect(await agent.send('y')).toMatchObject({ ok: false, code: 'stopped' });
  });
});
