/**
 * Qwen Code driven over the Agent Client Protocol (`qwen --acp`, offline against the scripted model
 * server, telemetry off): a turn, a command that asks through Baton's permission flow (Allow runs
 * it, Deny does not), a move to a device with another HOME and workspace path that carries the
 * history, Fork from here, and adopting a session the user ran with `qwen` itself, with the real CLI
 * in real git repositories.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../../../shared/permission-request.ts';
import type { PermissionLevel, ProviderEvent, ResumeData } from '../../../../shared/provider.ts';
import { SAMPLE_CONTINUATION as continuation, useCliBench } from '../../../../dev-env/agent-clis/cli-bench.ts';
import { listExistingSessions } from '../../existing-sessions.ts';
import { resumeProvider } from '../../resume.ts';
import { waitForIdle } from '../../wait-idle.ts';
import { ACP_AGENTS } from '../acp-agents.ts';
import { AcpSession } from '../acp-session.ts';
import { qwenChatPath } from './qwen-store.ts';

const bench = useCliBench();
const HELLO = `node -e "console.log('hello from node')"`;
/** Qwen Code is a large Node script: each start takes seconds on a loaded machine. */
const QWEN_TEST_MS = 240_000;

async function qwen(name: string, level: PermissionLevel, under = '') {
  const { home, workspace } = await bench.device(name, under);
  const session = bench.track(new AcpSession(ACP_AGENTS['qwen-code'], { env: home.env, deviceName: name, permission: level }));
  const events: ProviderEvent[] = [];
  session.onEvent((event) => {
    if (event.type === 'permission-request' || event.type === 'permission-cancelled') events.push(event);
  });
  const requests = (): PermissionRequest[] => events.flatMap((e) => (e.type === 'permission-request' ? [e.request] : []));
  async function request(n: number): Promise<PermissionRequest> {
    const deadline = Date.now() + 120_000;
    while (requests().length < n) {
      if (Date.now() > deadline) throw new Error(`no permission request ${n} within 120 s: ${bench.texts(session).join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return requests()[n - 1]!;
  }
  return { session, workspace, home, events, request };
}

async function settled(session: AcpSession): Promise<void> {
  if (!(await waitForIdle(session, 120_000))) throw new Error(`the turn did not end within 120 s: ${bench.texts(session).join(' | ')}`);
}

describe('Qwen Code over ACP (the real qwen --acp)', () => {
  it(
    'runs a turn, and asks before a command: Allow runs it, Deny does not',
    async () => {
      const { session, workspace, request } = await qwen('ask', 'workspace');
      await session.start(workspace, 'say hello');
      await settled(session);
      expect(bench.texts(session)).toEqual(['user: say hello', 'assistant: Hello from the scripted model.']);

      await session.send(`run command ${HELLO}`);
      const asked = await request(1);
      expect(asked).toEqual({ id: expect.any(String), agent: 'main', tool: 'execute', command: HELLO });
      await session.answerPermission(asked.id, { decision: 'allow' });
      await settled(session);
      expect(bench.texts(session).at(-2)).toMatch(/^tool: \$ node -e "console.log\('hello from node'\)"\n[\s\S]*Output: hello from node\n/);
      expect(bench.texts(session).at(-1)).toMatch(/^assistant: Command output: [\s\S]*hello from node/);

      const command = `node -e "require('fs').writeFileSync('ran.txt', 'x')"`;
      await session.send(`run command ${command}`);
      const denied = await request(2);
      await session.answerPermission(denied.id, { decision: 'deny' });
      await settled(session);
      expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
      expect(bench.texts(session).at(-1)).toBe('assistant: The tool call failed: Tool "run_shell_command" was canceled by the user.');
    },
    QWEN_TEST_MS,
  );

  it(
    'moves a session to a device with another HOME and workspace path, with its history',
    async () => {
      const laptop = await qwen('laptop', 'workspace');
      await laptop.session.start(laptop.workspace, 'my secret word is apple');
      await settled(laptop.session);
      const id = laptop.session.agentSessionId!;
      const exported = await laptop.session.exportResumeData();
      if (!exported.ok) throw new Error(exported.message);
      const data = JSON.parse(JSON.stringify(exported.value)) as ResumeData;
      expect(data).toMatchObject({ provider: 'qwen-code', format: 'qwen-code/chat@1', sessionId: id });

      const desktop = await qwen('desktop', 'workspace', 'elsewhere/deeper');
      expect(await resumeProvider(desktop.session, { workspace: desktop.workspace, resumeData: data, continuation })).toEqual({
        ok: true,
        value: { path: 'checkpoint-import' },
      });
      const moved = readFileSync(qwenChatPath(desktop.home.env, desktop.workspace, id), 'utf8');
      expect(moved).toContain(`"cwd":${JSON.stringify(desktop.workspace)}`);
      expect(moved).not.toContain(laptop.workspace);
      await desktop.session.send('what did I say first?');
      await settled(desktop.session);
      expect(desktop.session.agentSessionId).toBe(id);
      expect(bench.texts(desktop.session).at(-1)).toBe('assistant: I remember: my secret word is apple');
    },
    QWEN_TEST_MS,
  );

  it(
    'forks from here: a new session id with the history, the original file left as it is',
    async () => {
      const { session, workspace, home } = await qwen('fork', 'workspace');
      await session.start(workspace, 'my secret word is kiwi');
      await settled(session);
      const id = session.agentSessionId!;
      const exported = await session.exportResumeData();
      if (!exported.ok) throw new Error(exported.message);
      const original = readFileSync(qwenChatPath(home.env, workspace, id), 'utf8');
      const forked = bench.track(new AcpSession(ACP_AGENTS['qwen-code'], { env: home.env, deviceName: 'fork', permission: 'workspace' }));
      const outcome = await forked.resumeFromImport(exported.value, workspace, undefined, true);
      expect(outcome).toMatchObject({ ok: true, value: { note: expect.stringContaining('was forked here as session') } });
      const fork = forked.agentSessionId!;
      expect(fork).not.toBe(id);
      await forked.send('what did I say first?');
      await settled(forked);
      expect(forked.agentSessionId).toBe(fork);
      expect(bench.texts(forked).at(-1)).toBe('assistant: I remember: my secret word is kiwi');
      expect(readFileSync(qwenChatPath(home.env, workspace, id), 'utf8')).toBe(original);
    },
    QWEN_TEST_MS,
  );

  it(
    'adopts a session the user ran with qwen itself: listed, its history shown, and the next message resumes it',
    async () => {
      const { session, workspace, home } = await qwen('adopt', 'workspace');
      const ran = await bench.lab.run('qwen', ['-p', 'my secret word is plum'], { cwd: workspace, env: home.env });
      expect(ran).toMatchObject({ code: 0 });
      const listed = await listExistingSessions('qwen-code', workspace, home.env);
      if (!listed.ok) throw new Error(listed.message);
      expect(listed.value).toEqual([
        { provider: 'qwen-code', sessionId: expect.any(String), title: 'my secret word is plum', updatedAt: expect.any(Number) },
      ]);
      const id = listed.value[0]!.sessionId;
      expect(await session.adoptExisting(id, workspace)).toEqual({ ok: true, value: undefined });
      expect(bench.texts(session)).toEqual(['user: my secret word is plum', 'assistant: Scripted reply to: my secret word is plum']);
      await session.send('what did I say first?');
      await settled(session);
      expect(session.agentSessionId).toBe(id);
      expect(bench.texts(session).at(-1)).toBe('assistant: I remember: my secret word is plum');
    },
    QWEN_TEST_MS,
  );
});
