import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResumeData } from '../../../shared/provider.ts';
import { StandInLab, type StandInDevice, type StandInSandbox } from '../../../dev-env/stand-ins/stand-ins.ts';
import { waitForIdle } from '../wait-idle.ts';
import { CodexSession } from './codex-session.ts';
import { findRollout } from './rollout.ts';

const lab = new StandInLab();
afterEach(() => lab.cleanup());
const device = (name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<StandInDevice> => lab.device(name, extraEnv);
const session = (sandbox: StandInSandbox): CodexSession => lab.track(new CodexSession({ env: sandbox.env }));

describe('Codex adapter (against the stand-in codex)', () => {
  it('runs codex exec --json with the prompt on stdin and maps its events into the transcript', async () => {
    const { sandbox, workspace } = await device('a');
    const codex = session(sandbox);
    expect(await codex.start(workspace, 'add a test')).toEqual({ ok: true, value: undefined });
    expect(await waitForIdle(codex, 10_000)).toBe(true);
    const { agents, transcript } = codex.snapshot();
    expect(agents.map((a) => [a.id, a.parentId, a.status])).toEqual([['main', null, 'waiting']]);
    expect(transcript.map((e) => [e.role, e.text])).toEqual([
      ['user', 'add a test'],
      ['tool', '$ bash -lc ls (exit 0)'],
      ['assistant', 'Stand-in Codex received: add a test'],
    ]);
    const [call] = await sandbox.invocations();
    expect(call).toMatchObject({ tool: 'codex', cwd: workspace, argv: ['exec', '--json', '-'] });
    expect(codex.codexThreadId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('continues the same thread with exec resume on the next turn', async () => {
    const { sandbox, workspace } = await device('a');
    const codex = session(sandbox);
    await codex.start(workspace, 'one');
    await waitForIdle(codex, 10_000);
    await codex.send('two');
    await waitForIdle(codex, 10_000);
    const calls = await sandbox.invocations();
    expect(calls[1]?.argv).toEqual(['exec', '--json', 'resume', codex.codexThreadId, '-']);
    expect(codex.snapshot().transcript.at(-1)?.text).toContain(`Resumed session ${codex.codexThreadId}`);
  });

  it('imports a rollout exported from another workspace; the stand-in resumes the same id and sees the rewritten cwd', async () => {
    const source = await device('source');
    const target = await device('target');
    const a = session(source.sandbox);
    await a.start(source.workspace, 'refactor');
    await waitForIdle(a, 10_000);
    const exported = await a.exportResumeData();
    if (!exported.ok) throw new Error(exported.message);
    const carried = JSON.parse(JSON.stringify(exported.value)) as ResumeData;
    expect(carried).toMatchObject({ provider: 'codex', format: 'codex/rollout@1', sessionId: a.codexThreadId });

    const b = session(target.sandbox);
    expect(await b.resumeFromImport(carried, target.workspace)).toEqual({ ok: true, value: undefined });
    expect(b.snapshot().transcript.map((e) => [e.role, e.text.slice(0, 25)])).toEqual([
      ['user', 'refactor'],
      ['tool', 'shell {"command":["bash",'],
      ['assistant', 'Stand-in Codex received: '],
      ['system', `Codex session ${carried.sessionId}`.slice(0, 25)],
    ]);
    const home = target.sandbox.env.CODEX_HOME ?? '';
    const path = await findRollout(home, carried.sessionId ?? '');
    expect(path).toMatch(/^sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-.*\.jsonl$/);
    const lines = (await readFile(join(home, path ?? ''), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; payload: { cwd?: string } });
    const cwds = lines.filter((l) => l.type === 'session_meta' || l.type === 'turn_context').map((l) => l.payload.cwd);
    expect(cwds).toEqual([target.workspace, target.workspace]);
    expect(await target.sandbox.invocations()).toEqual([]);

    await b.send('keep going');
    await waitForIdle(b, 10_000);
    const [call] = await target.sandbox.invocations();
    expect(call).toMatchObject({ cwd: target.workspace, argv: ['exec', '--json', 'resume', carried.sessionId, '-'] });
    expect(b.snapshot().transcript.at(-1)?.text).toBe(
      `Resumed session ${carried.sessionId}; the rollout's cwd is ${target.workspace}; running in ${target.workspace}. Next: keep going`,
    );
  });

  it('refuses a rollout whose session_meta names another session, writing nothing', async () => {
    const { sandbox, workspace } = await device('t');
    const id = '0199a213-81c0-7800-8aa1-bbab2a035a53';
    const content = `${JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 'other', cwd: '/src' } })}\n`;
    const payload = {
      relativePath: `sessions/2025/08/11/rollout-2025-08-11T01-02-03-${id}.jsonl`,
      sourceCwd: '/src',
      encoding: 'utf8',
      content,
    };
    const codex = session(sandbox);
    const result = await codex.resumeFromImport({ provider: 'codex', format: 'codex/rollout@1', sessionId: id, payload }, workspace);
    expect(result).toMatchObject({ ok: false, code: 'import_check_failed', message: expect.stringContaining('session_meta') });
    expect(await findRollout(sandbox.env.CODEX_HOME ?? '', id)).toBeNull();
  });

  it('refuses a rollout path that leaves the sessions folder', async () => {
    const { sandbox, workspace } = await device('t');
    const payload = { relativePath: '../../etc/rollout-2025-08-11T01-02-03-abc.jsonl', sourceCwd: '/src', encoding: 'utf8', content: '' };
    const result = await session(sandbox).resumeFromImport(
      { provider: 'codex', format: 'codex/rollout@1', sessionId: 'abc', payload },
      workspace,
    );
    expect(result).toMatchObject({ ok: false, code: 'import_check_failed', message: expect.stringContaining('not a rollout path') });
  });

  it('interrupts a running turn', async () => {
    const { sandbox, workspace } = await device('slow', { BATON_STANDIN_DELAY_MS: '20000' });
    const codex = session(sandbox);
    await codex.start(workspace, 'long');
    await new Promise((r) => setTimeout(r, 300));
    const before = Date.now();
    await codex.interrupt();
    expect(Date.now() - before).toBeLessThan(5000);
    expect(codex.isTurnActive()).toBe(false);
  });
});
