import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContinuationInput, ProviderSession, ResumeData } from '../../shared/provider.ts';
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

/** A demo session's export after one turn "first" in `workspace`. */
async function demoExport(workspace: string): Promise<ResumeData> {
  const source = track(new DemoAgent({ turnMs: 20 }));
  await source.start(workspace, 'first');
  await waitForIdle(source, 2000);
  const exported = await source.exportResumeData();
  if (!exported.ok) throw new Error(exported.message);
  return exported.value;
}

describe('resumeProvider', () => {
  it('imports when the provider supports it and the data passes its checks', async () => {
    const workspace = await tempDir();
    const resumeData = JSON.parse(JSON.stringify(await demoExport(workspace))) as ResumeData;
    const target = track(new DemoAgent({ turnMs: 20 }));
    const outcome = await resumeProvider(target, { workspace, resumeData, continuation });
    expect(outcome).toEqual({ ok: true, value: { path: 'checkpoint-import' } });
    expect(target.snapshot().transcript[0]?.text).toBe('first');
  });

  it('takes summary continuation without trying import when import is refused (an older CLI), with that reason', async () => {
    const workspace = await tempDir();
    const exported = await demoExport(workspace);
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

  it('falls back to summary continuation when an import throws instead of answering (resume itself never throws)', async () => {
    const workspace = await tempDir();
    const resumeData = await demoExport(workspace);
    class ThrowingImport extends DemoAgent {
      override async resumeFromImport(): Promise<never> {
        throw new Error('EIO: i/o error, write');
      }
    }
    const target = track(new ThrowingImport({ turnMs: 20 }));
    const outcome = await resumeProvider(target, { workspace, resumeData, continuation });
    expect(outcome).toMatchObject({ ok: true, value: { path: 'summary-continuation', reason: expect.stringContaining('EIO: i/o error') } });
    await waitForIdle(target, 2000);
    expect(target.snapshot().transcript[0]?.text).toMatch(/^This is a continuation/);
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
