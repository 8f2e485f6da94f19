/**
 * GitHub Copilot CLI driven over the Agent Client Protocol (`copilot --acp`, offline against the
 * scripted model server): a turn, an edit, and a command that asks through Baton's permission flow
 * — Allow runs it, Deny does not — with the real CLI in real git repositories.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../../../shared/permission-request.ts';
import type { PermissionLevel, ProviderEvent } from '../../../../shared/provider.ts';
import { useCliBench } from '../../../../dev-env/agent-clis/cli-bench.ts';
import { createProvider } from '../../registry.ts';
import { waitForIdle } from '../../wait-idle.ts';
import type { AcpSession } from '../acp-session.ts';

const bench = useCliBench();
const HELLO = `node -e "console.log('hello from node')"`;

/** A Copilot session at `level` on a new device (made as the device runtime makes it), and its permission events. */
async function copilot(name: string, level: PermissionLevel) {
  const { home, workspace } = await bench.device(name);
  const made = createProvider('copilot', { env: home.env, deviceName: name }, { permission: level });
  if (!made.ok) throw new Error(made.message);
  const session = bench.track(made.value as AcpSession);
  const events: ProviderEvent[] = [];
  session.onEvent((event) => {
    if (event.type === 'permission-request' || event.type === 'permission-cancelled') events.push(event);
  });
  const requests = (): PermissionRequest[] => events.flatMap((e) => (e.type === 'permission-request' ? [e.request] : []));
  async function request(n: number): Promise<PermissionRequest> {
    const deadline = Date.now() + 60_000;
    while (requests().length < n) {
      if (Date.now() > deadline) throw new Error(`no permission request ${n} within 60 s: ${bench.texts(session).join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return requests()[n - 1]!;
  }
  return { session, workspace, home, events, request };
}

async function settled(session: AcpSession): Promise<void> {
  if (!(await waitForIdle(session, 60_000))) throw new Error(`the turn did not end within 60 s: ${bench.texts(session).join(' | ')}`);
}

describe('GitHub Copilot CLI over ACP (the real copilot --acp)', () => {
  it('runs a turn and writes a file at Full access, asking nothing', async () => {
    const { session, workspace, events } = await copilot('full', 'full');
    await session.start(workspace, 'say hello');
    await settled(session);
    expect(bench.texts(session)).toEqual(['user: say hello', 'assistant: Hello from the scripted model.']);
    expect(session.agentSessionId).toMatch(/^[0-9a-f-]{36}$/);
    await session.send('write file full.txt with yes');
    await settled(session);
    expect(readFileSync(join(workspace, 'full.txt'), 'utf8')).toBe('yes\n');
    expect(bench.texts(session).at(-1)).toBe('assistant: Wrote full.txt.');
    expect(events).toEqual([]);
  });

  it('asks before a command; Allow runs it, Deny does not', async () => {
    const { session, workspace, request } = await copilot('ask', 'workspace');
    await session.start(workspace, `run command ${HELLO}`);
    const asked = await request(1);
    expect(asked).toEqual({ id: expect.any(String), agent: 'main', tool: 'execute', command: HELLO });
    expect(session.isTurnActive()).toBe(true);
    expect(await session.answerPermission(asked.id, { decision: 'allow' })).toEqual({ ok: true, value: undefined });
    await settled(session);
    expect(bench.texts(session)).toContain(`tool: $ ${HELLO}\nhello from node\n<shellId: 0 completed with exit code 0>`);
    expect(bench.texts(session).at(-1)).toMatch(/^assistant: Command output: hello from node\n/);
    expect(await session.answerPermission(asked.id, { decision: 'allow' })).toMatchObject({ ok: false, code: 'request_not_pending' });

    const command = `node -e "require('fs').writeFileSync('ran.txt', 'x')"`;
    await session.send(`run command ${command}`);
    const denied = await request(2);
    expect(denied).toMatchObject({ tool: 'execute', command });
    await session.answerPermission(denied.id, { decision: 'deny' });
    await settled(session);
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
    expect(bench.texts(session).slice(-2)).toEqual([`tool: $ ${command} (declined)`, 'system: Info: Operation cancelled by user']);
  });

  it('"Ask before edits and commands" asks before a new file with its diff; Allow writes it, Deny does not', async () => {
    const { session, workspace, request } = await copilot('edits', 'ask');
    await session.start(workspace, 'write file asked.txt with Hello');
    const asked = await request(1);
    expect(asked).toMatchObject({
      agent: 'main',
      tool: 'edit',
      path: join(workspace, 'asked.txt'),
      diff: expect.stringContaining('+Hello'),
    });
    await session.answerPermission(asked.id, { decision: 'allow' });
    await settled(session);
    expect(readFileSync(join(workspace, 'asked.txt'), 'utf8')).toBe('Hello\n');

    await session.send('edit file asked.txt replacing Hello with Howdy');
    const edit = await request(2);
    expect(edit).toMatchObject({ tool: 'edit', path: join(workspace, 'asked.txt'), diff: expect.stringContaining('+Howdy') });
    await session.answerPermission(edit.id, { decision: 'deny' });
    await settled(session);
    expect(readFileSync(join(workspace, 'asked.txt'), 'utf8')).toBe('Hello\n');
  });

  it('"Edit files, ask before commands" writes inside the workspace without asking', async () => {
    const { session, workspace, events } = await copilot('inside', 'workspace');
    await session.start(workspace, 'write file inside.txt with fine');
    await settled(session);
    expect(readFileSync(join(workspace, 'inside.txt'), 'utf8')).toBe('fine\n');
    expect(events).toEqual([]);
  });

  it('an interrupt cancels a pending request and ends the turn; the next turn goes on in the same session', async () => {
    const { session, workspace, request, events } = await copilot('interrupt', 'ask');
    await session.start(workspace, `run command ${HELLO}`);
    await request(1);
    const id = session.agentSessionId;
    await session.interrupt();
    expect(session.isTurnActive()).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'permission-cancelled' });
    await session.send('say hello');
    await settled(session);
    expect(session.agentSessionId).toBe(id);
    expect(bench.texts(session).at(-1)).toBe('assistant: Hello from the scripted model.');
  });
});
