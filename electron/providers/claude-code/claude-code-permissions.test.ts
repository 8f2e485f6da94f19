/**
 * Claude Code asking before a tool use (`--permission-prompt-tool stdio`), against the real
 * `claude` and the scripted model server: each level asks for what it does not allow outright, the
 * answer reaches the CLI, and Full access never asks.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionAnswer, PermissionRequest } from '../../../shared/permission-request.ts';
import type { PermissionLevel, ProviderEvent } from '../../../shared/provider.ts';
import type { AgentHome } from '../../../dev-env/agent-clis/agent-homes.ts';
import { useCliBench } from '../../../dev-env/agent-clis/cli-bench.ts';
import { ClaudeCodeSession } from './claude-code-session.ts';

const bench = useCliBench({ slowChunkMs: 100, slowChunks: 200 });

/** A session at `permission` that answers every request with `answer` and keeps what it was asked and told. */
function claude(home: AgentHome, permission: PermissionLevel, answer: PermissionAnswer | null) {
  const session = bench.track(new ClaudeCodeSession({ env: home.env, permission }));
  const asked: PermissionRequest[] = [];
  const events: ProviderEvent['type'][] = [];
  session.onEvent((event) => {
    events.push(event.type);
    if (event.type !== 'permission-request') return;
    asked.push(event.request);
    if (answer) void session.answerPermission(event.request.id, answer);
  });
  return { session, asked, events };
}

const NODE_WRITE = `node -e "require('fs').writeFileSync('ran.txt', 'ran')"`;

describe('Claude Code permission requests (the real claude)', () => {
  it('asks before a command at "Edit files, ask before commands"; allowed, it runs and its output is in the transcript', async () => {
    const { home, workspace } = await bench.device('allow');
    const { session, asked } = claude(home, 'workspace', { decision: 'allow' });
    await bench.turn(session, `run command node -e "console.log('ran ' + 6 * 7)"`, workspace);
    expect(asked).toEqual([
      expect.objectContaining({
        agent: 'main',
        tool: 'Bash',
        command: `node -e "console.log('ran ' + 6 * 7)"`,
        reason: 'This command requires approval',
        suggestions: [{ tool: 'Bash', commandPrefix: `node -e "console.log('ran ' + 6 * 7)"` }],
      }),
    ]);
    expect(bench.texts(session)).toContain('assistant: Command output: ran 42');
    expect(bench.texts(session).some((text) => text.includes('refused'))).toBe(false);
  });

  it('denied with a message, the command does not run and the agent receives the message', async () => {
    const { home, workspace } = await bench.device('deny');
    const { session, asked } = claude(home, 'workspace', { decision: 'deny', message: 'Not now: run the unit tests instead' });
    await bench.turn(session, `run command ${NODE_WRITE}`, workspace);
    expect(asked).toHaveLength(1);
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
    expect(bench.texts(session)).toContain('assistant: The tool call failed: Not now: run the unit tests instead');
    expect(bench.lastRequest('anthropic-messages')?.reply).toBe('text');
    // The user's own deny is not reported again as a refusal of the level.
    expect(bench.texts(session).some((text) => text.startsWith('system: Claude Code was refused'))).toBe(false);
  });

  it('asks before an edit at "Ask before edits and commands", with the file and the diff of the change', async () => {
    const { home, workspace } = await bench.device('edit');
    writeFileSync(join(workspace, 'notes.txt'), 'one\ntwo\n');
    const { session, asked } = claude(home, 'ask', { decision: 'allow' });
    await bench.turn(session, 'write file notes.txt with three', workspace);
    const path = join(workspace, 'notes.txt');
    expect(asked).toEqual([expect.objectContaining({ tool: 'Write', path })]);
    expect(asked[0]?.diff).toContain(`--- ${path}`);
    expect(asked[0]?.diff).toMatch(/-one\n-two\n\+three\n/);
    expect(readFileSync(path, 'utf8')).toBe('three\n');
  });

  it('an Edit asks with the lines it changes, in context; allowed, the file is edited', async () => {
    const { home, workspace } = await bench.device('edit-lines');
    const path = join(workspace, 'list.txt');
    writeFileSync(path, 'alpha\nbeta\ngamma\n');
    const { session, asked } = claude(home, 'ask', { decision: 'allow' });
    await bench.turn(session, 'edit file list.txt replacing beta with BETA', workspace);
    expect(asked).toEqual([expect.objectContaining({ tool: 'Edit', path })]);
    expect(asked[0]?.diff).toContain('@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n');
    expect(readFileSync(path, 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(bench.texts(session).at(-1)).toBe('assistant: Edited list.txt.');
  });

  it('never asks at Full access', async () => {
    const { home, workspace } = await bench.device('full');
    const { session, events } = claude(home, 'full', null);
    await bench.turn(session, `run command ${NODE_WRITE}`, workspace);
    expect(readFileSync(join(workspace, 'ran.txt'), 'utf8')).toBe('ran');
    expect(events).not.toContain('permission-request');
  });

  it('an interrupt while a request waits ends the turn and withdraws the request; a later answer is refused', async () => {
    const { home, workspace } = await bench.device('interrupt');
    const { session, asked, events } = claude(home, 'workspace', null);
    await session.start(workspace, `run command ${NODE_WRITE}`);
    const deadline = Date.now() + 20_000;
    while (asked.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toHaveLength(1);
    await session.interrupt();
    expect(session.isTurnActive()).toBe(false);
    expect(events).toContain('permission-cancelled');
    expect(await session.answerPermission(asked[0]!.id, { decision: 'allow' })).toMatchObject({ ok: false, code: 'request_not_pending' });
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
  });
});
