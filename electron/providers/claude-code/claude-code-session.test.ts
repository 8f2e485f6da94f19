import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderEvent, ResumeData } from '../../../shared/provider.ts';
import { StandInLab, type StandInDevice, type StandInSandbox } from '../../../dev-env/stand-ins/stand-ins.ts';
import { waitForIdle } from '../wait-idle.ts';
import { ClaudeCodeSession } from './claude-code-session.ts';
import { projectSlug } from './paths.ts';

const lab = new StandInLab();
afterEach(() => lab.cleanup());
const device = (name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<StandInDevice> => lab.device(name, extraEnv);
const session = (sandbox: StandInSandbox): ClaudeCodeSession => lab.track(new ClaudeCodeSession({ env: sandbox.env }));

describe('Claude Code adapter (against the stand-in claude)', () => {
  it('runs a turn in the workspace and maps a Task call to a finished subagent under the main agent', async () => {
    const { sandbox, workspace } = await device('a');
    const claude = session(sandbox);
    const events: ProviderEvent[] = [];
    claude.onEvent((e) => events.push(e));
    expect(await claude.start(workspace, 'hello')).toEqual({ ok: true, value: undefined });
    expect(await waitForIdle(claude, 10_000)).toBe(true);
    const { agents, transcript } = claude.snapshot();
    const sub = agents.find((a) => a.parentId === 'main');
    expect(sub).toMatchObject({ name: 'Survey the workspace', role: 'general-purpose', status: 'done' });
    const subStatuses = events.flatMap((e) => (e.type === 'agent' && e.agent.id === sub?.id ? [e.agent.status] : []));
    expect(subStatuses.filter((s, i) => s !== subStatuses[i - 1])).toEqual(['running', 'done']);
    expect(transcript.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(transcript.find((e) => e.agentId === sub?.id && e.role === 'assistant')?.text).toBe(`Subagent surveyed ${workspace}.`);
    const [call] = await sandbox.invocations();
    expect(call).toMatchObject({ tool: 'claude', cwd: workspace });
    expect(call?.argv).toEqual(['-p', '--output-format', 'stream-json', '--input-format', 'stream-json', '--verbose']);
  });

  it('resumes its own session id on the next turn', async () => {
    const { sandbox, workspace } = await device('a');
    const claude = session(sandbox);
    await claude.start(workspace, 'one');
    await waitForIdle(claude, 10_000);
    const id = claude.claudeSessionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await claude.send('two');
    await waitForIdle(claude, 10_000);
    const calls = await sandbox.invocations();
    expect(calls[1]?.argv.slice(-2)).toEqual(['--resume', id]);
    expect(claude.snapshot().transcript.some((e) => e.text.startsWith(`Resumed session ${id}`))).toBe(true);
  });

  it('imports a session exported from another workspace and the stand-in resumes it there with the rewritten cwd', async () => {
    const source = await device('source');
    const target = await device('target');
    const a = session(source.sandbox);
    await a.start(source.workspace, 'fix the bug');
    await waitForIdle(a, 10_000);
    const exported = await a.exportResumeData();
    if (!exported.ok) throw new Error(exported.message);
    const carried = JSON.parse(JSON.stringify(exported.value)) as ResumeData;
    expect(carried).toMatchObject({ provider: 'claude-code', format: 'claude-code/transcript@1', sessionId: a.claudeSessionId });

    const b = session(target.sandbox);
    expect(await b.resumeFromImport(carried, target.workspace)).toEqual({ ok: true, value: undefined });
    expect(b.snapshot().transcript.some((e) => e.text === 'fix the bug')).toBe(true);
    expect(b.snapshot().agents.find((x) => x.parentId === 'main')?.status).toBe('done');
    const projectDir = join(target.sandbox.env.CLAUDE_CONFIG_DIR ?? '', 'projects', projectSlug(target.workspace));
    const written = await readFile(join(projectDir, `${carried.sessionId}.jsonl`), 'utf8');
    const cwds = new Set(
      written
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { cwd?: string }).cwd)
        .filter(Boolean),
    );
    expect([...cwds]).toEqual([target.workspace]);
    expect(await readdir(join(projectDir, carried.sessionId ?? '', 'subagents'))).toHaveLength(1);
    expect(await target.sandbox.invocations()).toEqual([]);

    await b.send('carry on');
    await waitForIdle(b, 10_000);
    const [call] = await target.sandbox.invocations();
    expect(call?.cwd).toBe(target.workspace);
    expect(call?.argv.slice(-2)).toEqual(['--resume', carried.sessionId]);
    const reply = b.snapshot().transcript.find((e) => e.text.startsWith('Resumed session'));
    expect(reply?.text).toBe(
      `Resumed session ${carried.sessionId} with 5 earlier messages; the transcript's cwd is ${target.workspace}; running in ${target.workspace}.`,
    );
  });

  it('refuses an import whose summary points at a missing message, writing nothing', async () => {
    const { sandbox, workspace } = await device('t');
    const line = { parentUuid: null, cwd: '/src', sessionId: 's1', type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u1' };
    const transcript = `${JSON.stringify({ type: 'summary', summary: 'x', leafUuid: 'nope' })}\n${JSON.stringify(line)}\n`;
    const data: ResumeData = {
      provider: 'claude-code',
      format: 'claude-code/transcript@1',
      sessionId: 'abc-123',
      payload: { sourceCwd: '/src', transcript, sideFiles: [] },
    };
    const claude = session(sandbox);
    const result = await claude.resumeFromImport(data, workspace);
    expect(result).toMatchObject({ ok: false, code: 'import_check_failed', message: expect.stringContaining('leafUuid nope') });
    await expect(readdir(join(sandbox.env.CLAUDE_CONFIG_DIR ?? '', 'projects'))).rejects.toThrow();
    expect(claude.snapshot().agents).toEqual([]);
  });

  it('refuses side files that would land outside the session folder', async () => {
    const { sandbox, workspace } = await device('t');
    const transcript = `${JSON.stringify({ uuid: 'u1', cwd: '/src', type: 'user', message: { content: 'x' } })}\n`;
    const payload = { sourceCwd: '/src', transcript, sideFiles: [{ path: '../../evil.jsonl', encoding: 'utf8', content: '' }] };
    const result = await session(sandbox).resumeFromImport(
      { provider: 'claude-code', format: 'claude-code/transcript@1', sessionId: 'abc', payload },
      workspace,
    );
    expect(result).toMatchObject({ ok: false, code: 'import_check_failed', message: expect.stringContaining('outside its folder') });
  });

  it('interrupts a running turn, leaving the session resumable', async () => {
    const { sandbox, workspace } = await device('slow', { BATON_STANDIN_DELAY_MS: '20000' });
    const claude = session(sandbox);
    await claude.start(workspace, 'long');
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 300));
    await claude.interrupt();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(claude.isTurnActive()).toBe(false);
    expect(claude.snapshot().transcript.at(-1)?.text).toContain('Interrupted');
    const exported = await claude.exportResumeData();
    expect(exported.ok && exported.value.sessionId).toBe(claude.claudeSessionId);
  });

  it('fails to start with spawn_failed when the binary is missing', async () => {
    const { sandbox, workspace } = await device('none');
    const claude = new ClaudeCodeSession({ env: sandbox.env, command: join(sandbox.root, 'no-such-claude') });
    lab.track(claude);
    expect(await claude.start(workspace, 'x')).toMatchObject({ ok: false, code: 'spawn_failed' });
    await waitForIdle(claude, 5000);
    expect(claude.isTurnActive()).toBe(false);
  });
});
