/**
 * Moving a GitHub Copilot CLI session between two "devices" (each its own HOME, each its own clone
 * at a different path) with the real `copilot --acp`: its session-state folder exported on one,
 * imported on the other with its cwd rewritten, and loaded there (`session/load`) with its history;
 * a round trip back, a session that went on here kept as it was, and adopting a session a user ran
 * with `copilot` itself before Baton.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ResumeData } from '../../../../shared/provider.ts';
import type { AgentHome } from '../../../../dev-env/agent-clis/agent-homes.ts';
import { SAMPLE_CONTINUATION as continuation, useCliBench } from '../../../../dev-env/agent-clis/cli-bench.ts';
import { listExistingSessions } from '../../existing-sessions.ts';
import { resumeProvider } from '../../resume.ts';
import { ACP_AGENTS } from '../acp-agents.ts';
import { AcpSession } from '../acp-session.ts';

const bench = useCliBench();
/** For a test that starts Copilot more than once (each start takes seconds on a loaded machine). */
const SEVERAL_STARTS_MS = 180_000;

const copilot = (home: AgentHome, deviceName = 'desktop'): AcpSession =>
  bench.track(new AcpSession(ACP_AGENTS.copilot, { env: home.env, deviceName, permission: 'workspace' }));

async function exportOf(session: AcpSession): Promise<ResumeData> {
  const exported = await session.exportResumeData();
  if (!exported.ok) throw new Error(exported.message);
  return JSON.parse(JSON.stringify(exported.value)) as ResumeData;
}

/** Imports `data` on `home` in `workspace` (the checkpoint-import path), ready for its next turn. */
async function imported(home: AgentHome, workspace: string, data: ResumeData, deviceName = 'desktop'): Promise<AcpSession> {
  const target = copilot(home, deviceName);
  expect(await resumeProvider(target, { workspace, resumeData: data, continuation })).toEqual({
    ok: true,
    value: { path: 'checkpoint-import' },
  });
  return target;
}

const workspaceYaml = (home: AgentHome, id: string): Record<string, unknown> =>
  parse(readFileSync(join(home.copilotHome, 'session-state', id, 'workspace.yaml'), 'utf8')) as Record<string, unknown>;

describe('Copilot CLI session moved between devices (the real copilot --acp)', () => {
  it(
    'continues the same session on the other device, in a workspace at another path, with its history, and back',
    async () => {
      const laptop = await bench.device('laptop');
      const desktop = await bench.device('desktop', 'elsewhere/deeper');
      const source = copilot(laptop.home, 'laptop');
      await bench.turn(source, 'my secret word is apple', laptop.workspace);
      const id = source.agentSessionId!;
      const data = await exportOf(source);
      expect(data).toMatchObject({ provider: 'copilot', format: 'copilot/session-state@1', sessionId: id });
      expect(data.files?.map((file) => file.name)).toEqual(expect.arrayContaining(['events.jsonl', 'workspace.yaml']));

      const target = await imported(desktop.home, desktop.workspace, data);
      expect(workspaceYaml(desktop.home, id)).toMatchObject({ id, cwd: desktop.workspace });
      expect(bench.texts(target)).toEqual([`system: Copilot session ${id} was imported on desktop; the next message resumes it.`]);
      await bench.turn(target, 'what did I say first?');
      expect(target.agentSessionId).toBe(id);
      expect(bench.texts(target).at(-1)).toBe('assistant: I remember: my secret word is apple');
      await bench.turn(target, 'write file moved.txt with written on the desktop');
      expect(readFileSync(join(desktop.workspace, 'moved.txt'), 'utf8')).toBe('written on the desktop\n');
      expect(existsSync(join(laptop.workspace, 'moved.txt'))).toBe(false);

      // Back to the laptop: its copy is an earlier state of the moved one, so it is replaced, same id.
      await source.stop();
      const back = await imported(laptop.home, laptop.workspace, await exportOf(target), 'laptop');
      expect(workspaceYaml(laptop.home, id)).toMatchObject({ id, cwd: laptop.workspace });
      await bench.turn(back, 'what did I say first?');
      expect(back.agentSessionId).toBe(id);
      expect(bench.texts(back).at(-1)).toBe('assistant: I remember: my secret word is apple');
      const sent = bench.lastRequest('openai-chat')?.body as { messages?: { content?: unknown }[] } | undefined;
      expect(JSON.stringify(sent?.messages)).toContain('moved.txt');
    },
    SEVERAL_STARTS_MS,
  );

  it(
    'keeps a session continued here in a terminal while it was away, and imports the moved one as a fork',
    async () => {
      const [desktop, laptop] = [await bench.device('desktop'), await bench.device('laptop')];
      const source = copilot(desktop.home);
      await bench.turn(source, 'my secret word is pear', desktop.workspace);
      const id = source.agentSessionId!;
      const away = await imported(laptop.home, laptop.workspace, await exportOf(source), 'laptop');
      await bench.turn(away, 'say hello');
      await source.stop();
      // Meanwhile the user goes on with the session on the desktop, in a terminal.
      const ran = await bench.lab.run('copilot', [`--resume=${id}`, '-p', 'my terminal word is fig', '--allow-all-tools'], {
        cwd: desktop.workspace,
        env: desktop.home.env,
      });
      expect(ran.code).toBe(0);
      const events = join(desktop.home.copilotHome, 'session-state', id, 'events.jsonl');
      const continued = readFileSync(events, 'utf8');
      expect(continued).toContain('my terminal word is fig');

      // Then the session moves back from the laptop.
      const home = copilot(desktop.home);
      const resumed = await resumeProvider(home, { workspace: desktop.workspace, resumeData: await exportOf(away), continuation });
      expect(resumed).toMatchObject({
        ok: true,
        value: { path: 'checkpoint-import', reason: expect.stringContaining('imported as a fork') },
      });
      const fork = home.agentSessionId!;
      expect(fork).not.toBe(id);
      expect(bench.texts(home).at(-1)).toContain(`system: Desktop already had Copilot session ${id},`);
      expect(readFileSync(events, 'utf8')).toBe(continued);
      expect(workspaceYaml(desktop.home, fork)).toMatchObject({ id: fork, cwd: desktop.workspace });
      await bench.turn(home, 'what did I say first?');
      expect(home.agentSessionId).toBe(fork);
      expect(bench.texts(home).at(-1)).toBe('assistant: I remember: my secret word is pear');
      expect(bench.lastRequest('openai-chat')?.userTexts).not.toContain('my terminal word is fig');
    },
    SEVERAL_STARTS_MS,
  );

  it(
    'forks from here: a new session id with the history, the original left as it is',
    async () => {
      const { home, workspace } = await bench.device('fork');
      const source = copilot(home);
      await bench.turn(source, 'my secret word is kiwi', workspace);
      const id = source.agentSessionId!;
      const data = await exportOf(source);
      const original = readFileSync(join(home.copilotHome, 'session-state', id, 'events.jsonl'), 'utf8');

      const forked = copilot(home);
      const outcome = await forked.resumeFromImport(data, workspace, undefined, true);
      expect(outcome).toMatchObject({ ok: true, value: { note: expect.stringContaining(`was forked here as session`) } });
      expect(forked.agentSessionId).not.toBe(id);
      await bench.turn(forked, 'what did I say first?');
      expect(bench.texts(forked).at(-1)).toBe('assistant: I remember: my secret word is kiwi');
      expect(readFileSync(join(home.copilotHome, 'session-state', id, 'events.jsonl'), 'utf8')).toBe(original);
      expect(workspaceYaml(home, forked.agentSessionId!)).toMatchObject({ id: forked.agentSessionId, cwd: workspace });
    },
    SEVERAL_STARTS_MS,
  );

  it('refuses data that is not a Copilot session folder, changing nothing', async () => {
    const { home, workspace } = await bench.device('refuse');
    const session = copilot(home);
    const data: ResumeData = { provider: 'copilot', format: 'copilot/session-state@1', sessionId: '../x', payload: {}, files: [] };
    expect(await session.resumeFromImport(data, workspace)).toMatchObject({ ok: false, code: 'import_check_failed' });
    expect(existsSync(join(home.copilotHome, 'session-state'))).toBe(false);
  });

  it(
    'adopts a session the user ran with copilot itself: listed, its history shown, and the next message resumes it',
    async () => {
      const { home, workspace } = await bench.device('adopt');
      const ran = await bench.lab.run('copilot', ['-p', 'my secret word is plum', '--allow-all-tools'], { cwd: workspace, env: home.env });
      expect(ran.code).toBe(0);
      const listed = await listExistingSessions('copilot', workspace, home.env);
      if (!listed.ok) throw new Error(listed.message);
      expect(listed.value).toEqual([
        { provider: 'copilot', sessionId: expect.any(String), title: 'my secret word is plum', updatedAt: expect.any(Number) },
      ]);
      const id = listed.value[0]!.sessionId;

      const session = copilot(home);
      expect(await session.adoptExisting(id, workspace)).toEqual({ ok: true, value: undefined });
      expect(bench.texts(session)).toEqual(['user: my secret word is plum', 'assistant: Scripted reply to: my secret word is plum']);
      await bench.turn(session, 'what did I say first?');
      expect(session.agentSessionId).toBe(id);
      expect(bench.texts(session).at(-1)).toBe('assistant: I remember: my secret word is plum');
    },
    SEVERAL_STARTS_MS,
  );
});
