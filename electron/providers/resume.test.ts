import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContinuationInput, ProviderSession } from '../../shared/provider.ts';
import { standInSandbox, type StandInSandbox } from '../../dev-env/stand-ins/stand-ins.ts';
import { ClaudeCodeSession } from './claude-code/claude-code-session.ts';
import { CommandAgentSession } from './command-agent.ts';
import { DemoAgent } from './demo-agent.ts';
import { resumeProvider } from './resume.ts';
import { waitForIdle } from './wait-idle.ts';

const continuation: ContinuationInput = {
  sessionTitle: 'Tidy the parser',
  sourceDeviceName: 'desk',
  packet: { goal: 'Tidy the parser', acceptanceCriteria: 'Tests pass', currentState: 'Half done', nextAction: 'Split parse.ts' },
  verifiedFacts: ['branch main at abc1234'],
  driftWarnings: [],
  transcriptTail: [{ id: 'e1', at: 1, role: 'user', agentId: 'main', text: 'start tidying' }],
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'baton-resume-')));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function track<T extends ProviderSession>(session: T): T {
  cleanups.push(() => session.stop());
  return session;
}

async function sandbox(): Promise<StandInSandbox> {
  const s = await standInSandbox('resume');
  cleanups.push(() => s.cleanup());
  return s;
}

/** A demo agent's export after one turn ("first") in a fresh workspace. */
async function demoExport() {
  const workspace = await tempDir();
  const source = track(new DemoAgent({ turnMs: 20 }));
  await source.start(workspace, 'first');
  await waitForIdle(source, 2000);
  const exported = await source.exportResumeData();
  if (!exported.ok) throw new Error(exported.message);
  return { workspace, exported: exported.value };
}

describe('resumeProvider', () => {
  it('imports when the provider supports it and the data passes its checks', async () => {
    const { workspace, exported } = await demoExport();
    const target = track(new DemoAgent({ turnMs: 20 }));
    const outcome = await resumeProvider(target, { workspace, resumeData: JSON.parse(JSON.stringify(exported)), continuation });
    expect(outcome).toEqual({ ok: true, value: { path: 'checkpoint-import' } });
    expect(target.snapshot().transcript[0]?.text).toBe('first');
  });

  it('takes summary continuation without trying import when import is refused (an older CLI), with that reason', async () => {
    const { workspace, exported } = await demoExport();
    const target = track(new DemoAgent({ turnMs: 20 }));
    const importRefused = 'The target device has an older CLI.';
    const outcome = await resumeProvider(target, { workspace, resumeData: exported, continuation, importRefused });
    expect(outcome).toEqual({ ok: true, value: { path: 'summary-continuation', reason: importRefused } });
    expect(target.snapshot().transcript[0]?.text).toContain('This is a continuation of the session "Tidy the parser"');
  });

  it('gives a provider without import summary continuation, and says so', async () => {
    const workspace = await tempDir();
    const echo = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(s))`;
    const agent = track(new CommandAgentSession({ argv: [process.execPath, '-e', echo] }));
    const outcome = await resumeProvider(agent, { workspace, resumeData: null, continuation });
    expect(outcome).toEqual({
      ok: true,
      value: { path: 'summary-continuation', reason: 'Command-line agent cannot import a session, so it continues from a summary.' },
    });
    await waitForIdle(agent, 10_000);
    const answer = agent.snapshot().transcript.find((e) => e.role === 'assistant')?.text ?? '';
    expect(answer).toMatch(/^This is a continuation of the session "Tidy the parser"/);
    expect(answer).toContain('Split parse.ts');
  });

  it('falls back to summary continuation with the reason when an import fails its check (dangling leafUuid)', async () => {
    const [workspace, env] = [await tempDir(), await sandbox()];
    const transcript = [
      { type: 'summary', summary: 's', leafUuid: 'gone' },
      { uuid: 'u1', parentUuid: null, cwd: '/src', sessionId: 'abc', type: 'user', message: { role: 'user', content: 'hi' } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const resumeData = {
      provider: 'claude-code',
      format: 'claude-code/transcript@1',
      sessionId: 'abc',
      payload: { sourceCwd: '/src', transcript, sideFiles: [] },
    };
    const claude = track(new ClaudeCodeSession({ env: env.env }));
    const outcome = await resumeProvider(claude, { workspace, resumeData, continuation });
    expect(outcome).toMatchObject({ ok: true, value: { path: 'summary-continuation', reason: expect.stringContaining('leafUuid gone') } });
    await waitForIdle(claude, 10_000);
    const calls = await env.invocations();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.argv).not.toContain('--resume');
    expect(claude.snapshot().transcript[0]?.text).toMatch(/^This is a continuation/);
  });

  it("uses summary continuation when the checkpoint carries no provider data, or another provider's", async () => {
    const workspace = await tempDir();
    const none = await resumeProvider(track(new DemoAgent({ turnMs: 10 })), { workspace, resumeData: null, continuation });
    expect(none).toEqual({
      ok: true,
      value: { path: 'summary-continuation', reason: 'The checkpoint carries no Demo agent session to import.' },
    });
    const other = { provider: 'codex', format: 'codex/rollout@1', sessionId: 'x', payload: {} };
    const wrong = await resumeProvider(track(new DemoAgent({ turnMs: 10 })), { workspace, resumeData: other, continuation });
    expect(wrong).toMatchObject({
      ok: true,
      value: { path: 'summary-continuation', reason: 'The checkpoint carries a Codex session, not a Demo agent one.' },
    });
    const junk = await resumeProvider(track(new DemoAgent({ turnMs: 10 })), { workspace, resumeData: { format: 1 }, continuation });
    expect(junk).toMatchObject({ ok: true, value: { path: 'summary-continuation', reason: expect.stringContaining('was refused') } });
  });

  it('fails when even summary continuation cannot start the provider', async () => {
    const workspace = await tempDir();
    const missing = track(new CommandAgentSession({ argv: [join(workspace, 'nope')] }));
    const outcome = await resumeProvider(missing, { workspace, resumeData: null, continuation });
    expect(outcome).toMatchObject({ ok: false, code: 'spawn_failed' });
    expect(missing.isTurnActive()).toBe(false);
  });
});
