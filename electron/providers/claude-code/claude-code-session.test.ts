/**
 * The Claude Code adapter against the real `claude` (the pinned version), talking to the scripted
 * model server from a loopback-only network namespace (dev-env/agent-clis/), in real git repositories.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionLevel } from '../../../shared/provider.ts';
import type { AgentHome } from '../../../dev-env/agent-clis/agent-homes.ts';
import { useCliBench, type BenchDevice } from '../../../dev-env/agent-clis/cli-bench.ts';
import { ClaudeCodeSession } from './claude-code-session.ts';
import { findSessionFiles } from './paths.ts';

const bench = useCliBench({ slowChunkMs: 100, slowChunks: 200 });

/** A session with `permission` (the adapter's default when not given). */
function claude(home: AgentHome, permission?: PermissionLevel, extraArgs: string[] = []): ClaudeCodeSession {
  return bench.track(new ClaudeCodeSession({ env: home.env, permission, extraArgs }));
}

const device = (name: string): Promise<BenchDevice> => bench.device(name);
const turn = (session: ClaudeCodeSession, text: string, workspace?: string): Promise<void> => bench.turn(session, text, workspace);
const texts = (session: ClaudeCodeSession): string[] => bench.texts(session);
const lastRequest = () => bench.lastRequest('anthropic-messages');

describe('Claude Code adapter (the real claude)', () => {
  it('edits a file in the workspace by default, and the transcript shows the Write call', async () => {
    const { home, workspace } = await device('edit');
    const session = claude(home);
    await turn(session, 'write file hello.txt with Hello from Claude', workspace);
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('Hello from Claude\n');
    expect(texts(session)).toEqual([
      'user: write file hello.txt with Hello from Claude',
      `tool: Write ${workspace}/hello.txt`,
      expect.stringMatching(/^tool: Result: File created successfully/),
      'assistant: Wrote hello.txt.',
    ]);
    expect(session.snapshot().agents).toMatchObject([{ id: 'main', name: 'Claude Code', status: 'waiting' }]);
    expect(session.claudeSessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('continues the same session with --resume, and the model receives the earlier history', async () => {
    const { home, workspace } = await device('resume');
    const session = claude(home);
    await turn(session, 'my secret word is apple', workspace);
    const id = session.claudeSessionId;
    await turn(session, 'what did I say first?');
    expect(session.claudeSessionId).toBe(id);
    expect(texts(session).at(-1)).toBe('assistant: I remember: my secret word is apple');
    expect(lastRequest()).toMatchObject({ userTexts: ['my secret word is apple', 'what did I say first?'] });
    expect(lastRequest()?.headers['x-claude-code-session-id']).toBe(id);
  });

  it('maps a subagent (the Agent tool) to a finished agent under the main agent', async () => {
    const { home, workspace } = await device('subagent');
    const session = claude(home);
    await turn(session, 'use a subagent', workspace);
    const sub = session.snapshot().agents.find((a) => a.parentId === 'main');
    expect(sub).toMatchObject({ name: 'Scripted subagent', role: 'general-purpose', status: 'done' });
    expect(bench.lab.server.requests.some((r) => r.lastUserText === 'subagent: say hello')).toBe(true);
  });

  it("shows Claude's own error line: an error result's errors[], and a rejected argument", async () => {
    const { home, workspace } = await device('errors');
    const session = claude(home);
    await turn(session, 'say hello', workspace);
    const id = session.claudeSessionId ?? '';
    const files = await findSessionFiles(home.env, workspace, id);
    await rm(files?.transcript ?? '');
    await turn(session, 'say hello again');
    expect(texts(session).slice(-1)).toEqual([`system: Claude Code reported an error: No conversation found with session ID: ${id}`]);

    const rejected = claude(home, undefined, ['--bogus-flag']);
    await turn(rejected, 'say hello', workspace);
    expect(texts(rejected).at(-1)).toBe("system: Claude Code exited with code 1: error: unknown option '--bogus-flag'");
  });

  it('interrupts a slow turn at once; the next turn resumes the same session', async () => {
    const { home, workspace } = await device('interrupt');
    const session = claude(home);
    await session.start(workspace, 'slow');
    await bench.requested('slow');
    await new Promise((r) => setTimeout(r, 300));
    const asked = Date.now();
    await session.interrupt();
    expect(Date.now() - asked).toBeLessThan(2000);
    expect(texts(session).at(-1)).toBe('system: Interrupted: Claude Code stopped this turn.');
    expect(lastRequest()).toMatchObject({ lastUserText: 'slow', aborted: true });
    await turn(session, 'what did I say first?');
    expect(texts(session).at(-1)).toBe('assistant: I remember: slow');
  });
});
