/**
 * The Codex adapter against the real `codex` (the pinned version), talking to the scripted model
 * server from a loopback-only network namespace (dev-env/agent-clis/), in real git repositories.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionLevel, ResumeData } from '../../../shared/provider.ts';
import type { AgentHome } from '../../../dev-env/agent-clis/agent-homes.ts';
import { useCliBench, type BenchDevice } from '../../../dev-env/agent-clis/cli-bench.ts';
import { FIXTURES, fixtureText } from '../../../dev-env/fixtures/fixtures.ts';
import { CodexSession } from './codex-session.ts';

const bench = useCliBench({ slowChunkMs: 100, slowChunks: 200 });

/** A session with `permission` (the adapter's default when not given). */
function codex(home: AgentHome, permission?: PermissionLevel, extraArgs: string[] = []): CodexSession {
  return bench.track(new CodexSession({ env: home.env, permission, extraArgs }));
}

const device = (name: string): Promise<BenchDevice> => bench.device(name);
const turn = (session: CodexSession, text: string, workspace?: string): Promise<void> => bench.turn(session, text, workspace);
const texts = (session: CodexSession): string[] => bench.texts(session);
const lastRequest = () => bench.lastRequest('openai-responses');
const turnMetadata = (): Record<string, unknown> =>
  JSON.parse(lastRequest()?.headers['x-codex-turn-metadata'] ?? '{}') as Record<string, unknown>;

describe('Codex adapter (the real codex)', () => {
  it('edits a file in the workspace by default, and the transcript shows the change', async () => {
    const { home, workspace } = await device('edit');
    const session = codex(home);
    const asked: string[] = [];
    session.onEvent((event) => event.type === 'permission-request' && asked.push(event.request.tool));
    await turn(session, 'write file hello.txt with Hello from Codex', workspace);
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('Hello from Codex\n');
    expect(texts(session)).toEqual([
      'user: write file hello.txt with Hello from Codex',
      `tool: Changed files: add ${workspace}/hello.txt`,
      'assistant: Wrote hello.txt.',
    ]);
    expect(turnMetadata()).toMatchObject({ sandbox_mode: 'workspace-write' });
    expect(session.codexThreadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(asked).toEqual([]);
  });

  it('continues the same thread by resuming it, and the model receives the earlier history', async () => {
    const { home, workspace } = await device('resume');
    const session = codex(home);
    await turn(session, 'my secret word is apple', workspace);
    const id = session.codexThreadId;
    await turn(session, 'what did I say first?');
    expect(session.codexThreadId).toBe(id);
    expect(texts(session).at(-1)).toBe('assistant: I remember: my secret word is apple');
    expect(lastRequest()).toMatchObject({ userTexts: ['my secret word is apple', 'what did I say first?'] });
    expect(turnMetadata()).toMatchObject({ thread_id: id, history_initialization: 'cold_resume' });
    expect(lastRequest()?.headers['thread-id']).toBe(id);
  });

  it('runs in a workspace that is not a git repository', async () => {
    const home = await bench.lab.home('plain');
    const workspace = await realpath(await mkdtemp(join(tmpdir(), 'baton-codex-plain-')));
    try {
      const session = codex(home);
      await turn(session, 'say hello', workspace);
      expect(texts(session)).toEqual(['user: say hello', 'assistant: Hello from the scripted model.']);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });

  it("shows Codex's own error line, not the usage text after it", async () => {
    const { home, workspace } = await device('errors');
    const session = codex(home, undefined, ['--full-auto']);
    await turn(session, 'say hello', workspace);
    expect(texts(session).at(-1)).toBe("system: Codex exited with code 2: error: unexpected argument '--full-auto' found");
    expect(session.isTurnActive()).toBe(false);
  });

  it("shows a model API error once, in Codex's words, and the next turn goes on", async () => {
    const { home, workspace } = await device('api-error');
    const session = codex(home);
    await turn(session, 'error 400', workspace);
    expect(texts(session)).toEqual(['user: error 400', expect.stringMatching(/^system: Codex error: .*Scripted error 400/)]);
    await turn(session, 'say hello');
    expect(texts(session).at(-1)).toBe('assistant: Hello from the scripted model.');
  });

  it('says so when a resumed turn started another thread (Codex does for a name it does not know)', async () => {
    const { home, workspace } = await device('rename');
    const recorded = FIXTURES.codex['write-and-resume'];
    const relativePath = recorded.relativePath.replace(recorded.threadId, 'my-thread');
    const content = fixtureText(recorded.file).replaceAll(recorded.threadId, 'my-thread');
    const payload = { relativePath, sourceCwd: FIXTURES.workspace, encoding: 'utf8', content };
    const data: ResumeData = { provider: 'codex', format: 'codex/rollout@1', sessionId: 'my-thread', payload };
    const session = codex(home);
    expect(await session.resumeFromImport(data, workspace)).toEqual({ ok: true, value: {} });
    await turn(session, 'say hello');
    const started = session.codexThreadId;
    expect(started).not.toBe('my-thread');
    expect(texts(session)).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^system: Codex did not resume session my-thread \\(invalid session id: .*\\): it started a new session ${started}, without the earlier history\\.$`,
        ),
      ),
    );
  });

  it('interrupts a slow turn at once; the next turn resumes the same thread', async () => {
    const { home, workspace } = await device('interrupt');
    const session = codex(home);
    await session.start(workspace, 'slow');
    await bench.requested('slow');
    await new Promise((r) => setTimeout(r, 300));
    const asked = Date.now();
    await session.interrupt();
    expect(Date.now() - asked).toBeLessThan(2000);
    expect(texts(session).at(-1)).toBe('system: Interrupted: Codex stopped this turn.');
    expect(lastRequest()).toMatchObject({ lastUserText: 'slow', aborted: true });
    const id = session.codexThreadId;
    await turn(session, 'what did I say first?');
    expect(session.codexThreadId).toBe(id);
    expect(texts(session).at(-1)).toBe('assistant: I remember: slow');
  });

  it('refuses a rollout path that leaves the sessions folder, writing nothing', async () => {
    const home = await bench.lab.home('refuse');
    const payload = { relativePath: '../../etc/rollout-2025-08-11T01-02-03-abc.jsonl', sourceCwd: '/src', encoding: 'utf8', content: '' };
    const result = await codex(home).resumeFromImport(
      { provider: 'codex', format: 'codex/rollout@1', sessionId: 'abc', payload },
      home.home,
    );
    expect(result).toMatchObject({ ok: false, code: 'import_check_failed', message: expect.stringContaining('not a rollout path') });
    expect(existsSync(join(home.codexHome, 'sessions'))).toBe(false);
  });
});
