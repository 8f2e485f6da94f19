/**
 * Codex asking before what the session's level does not allow outright, with the real `codex app-server`
 * against the scripted model server, in real git repositories: the ask, each answer as Codex receives
 * it, what the model then sees, and what interrupt and stop do to a request still pending.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleCovers, sessionRuleFor, type PermissionRequest } from '../../../shared/permission-request.ts';
import type { PermissionLevel, ProviderEvent } from '../../../shared/provider.ts';
import { useCliBench } from '../../../dev-env/agent-clis/cli-bench.ts';
import { waitForIdle } from '../wait-idle.ts';
import { CodexSession } from './codex-session.ts';

const bench = useCliBench();
const HELLO = `node -e "console.log('hello from node')"`;

/** A session at `level` on a new device, and every permission event it reports. */
async function asking(name: string, level: PermissionLevel) {
  const { home, workspace } = await bench.device(name);
  const session = bench.track(new CodexSession({ env: home.env, permission: level }));
  const events: ProviderEvent[] = [];
  session.onEvent((event) => {
    if (event.type === 'permission-request' || event.type === 'permission-cancelled') events.push(event);
  });
  const requests = (): PermissionRequest[] => events.flatMap((e) => (e.type === 'permission-request' ? [e.request] : []));
  /** Resolves with the `n`th request (from 1) once it has come. */
  async function request(n: number): Promise<PermissionRequest> {
    const deadline = Date.now() + 20_000;
    while (requests().length < n) {
      if (Date.now() > deadline) throw new Error(`no permission request ${n} within 20 s: ${bench.texts(session).join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return requests()[n - 1]!;
  }
  return { session, workspace, home, events, requests, request };
}

async function settled(session: CodexSession): Promise<void> {
  if (!(await waitForIdle(session, 30_000))) throw new Error('the turn did not end within 30 s');
}

const turnMetadata = (): Record<string, unknown> =>
  JSON.parse(bench.lastRequest('openai-responses')?.headers['x-codex-turn-metadata'] ?? '{}') as Record<string, unknown>;

describe('Codex asks before what its level does not allow (the real codex app-server)', () => {
  it('asks before a command; Allow runs it and its output is in the transcript', async () => {
    const { session, workspace, request } = await asking('allow', 'workspace');
    expect((await session.start(workspace, `run command ${HELLO}`)).ok).toBe(true);
    const asked = await request(1);
    expect(asked).toEqual({ id: expect.any(String), agent: 'main', tool: 'commandExecution', command: HELLO });
    expect(session.isTurnActive()).toBe(true);
    expect(await session.answerPermission(asked.id, { decision: 'allow' })).toEqual({ ok: true, value: undefined });
    await settled(session);
    const texts = bench.texts(session);
    expect(texts).toContain(`tool: $ ${HELLO} (exit 0)\nhello from node`);
    expect(texts.at(-1)).toMatch(/^assistant: Command output: [\s\S]*hello from node$/);
    expect(await session.answerPermission(asked.id, { decision: 'allow' })).toMatchObject({ ok: false, code: 'request_not_pending' });
  });

  it('Deny with a message: the command does not run, and the model reads the message', async () => {
    const { session, workspace, request } = await asking('deny', 'workspace');
    const command = `node -e "require('fs').writeFileSync('ran.txt', 'x')"`;
    await session.start(workspace, `run command ${command}`);
    const asked = await request(1);
    await session.answerPermission(asked.id, { decision: 'deny', message: 'run the tests with npm test instead' });
    await settled(session);
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
    const denial = `I denied your request to run \`${command}\`: run the tests with npm test instead`;
    expect(bench.texts(session).slice(-2)).toEqual([`tool: $ ${command} (declined)`, `assistant: Scripted reply to: ${denial}`]);
    expect(bench.lastRequest('openai-responses')?.lastUserText).toBe(denial);
  });

  it('Allow for this session: Codex does not ask again in the turn, and the rule covers the same command in the next', async () => {
    const { session, workspace, request, requests } = await asking('session', 'workspace');
    await session.start(workspace, `run command twice ${HELLO}`);
    const first = await request(1);
    await session.answerPermission(first.id, { decision: 'allow-session' });
    await settled(session);
    expect(requests()).toHaveLength(1);
    expect(bench.texts(session).filter((t) => t.startsWith(`tool: $ ${HELLO} (exit 0)`))).toHaveLength(2);

    // A later turn is a new app-server process: Codex asks again, and the runtime's rule answers it.
    await session.send(`run command ${HELLO}`);
    const next = await request(2);
    expect(next.id).not.toBe(first.id);
    expect(ruleCovers(sessionRuleFor(first), next)).toBe(true);
    await session.answerPermission(next.id, { decision: 'allow' });
    await settled(session);
  });

  it('"Ask before edits and commands" asks before a file change with its diff; Allow writes it, Deny does not; an edit shows its hunk', async () => {
    const { session, workspace, request } = await asking('edits', 'ask');
    await session.start(workspace, 'write file asked.txt with Hello');
    const asked = await request(1);
    expect(asked).toEqual({
      id: expect.any(String),
      agent: 'main',
      tool: 'fileChange',
      path: join(workspace, 'asked.txt'),
      diff: expect.stringMatching(/^Index: .*asked\.txt\n=+\n--- .*asked\.txt\n\+\+\+ .*asked\.txt\n@@ -0,0 \+1,1 @@\n\+Hello\n$/),
    });
    await session.answerPermission(asked.id, { decision: 'allow' });
    await settled(session);
    expect(readFileSync(join(workspace, 'asked.txt'), 'utf8')).toBe('Hello\n');
    expect(turnMetadata()).toMatchObject({ sandbox_mode: 'workspace-write' });

    await session.send('write file refused.txt with no');
    await session.answerPermission((await request(2)).id, { decision: 'deny' });
    await settled(session);
    expect(existsSync(join(workspace, 'refused.txt'))).toBe(false);
    expect(bench.texts(session)).toContain(`tool: Declined file changes: add ${join(workspace, 'refused.txt')}`);

    await session.send('edit file asked.txt replacing Hello with Howdy');
    const edit = await request(3);
    const file = join(workspace, 'asked.txt');
    expect(edit).toMatchObject({ tool: 'fileChange', path: file, diff: `--- ${file}\n+++ ${file}\n@@ -1 +1 @@\n-Hello\n+Howdy\n` });
    await session.answerPermission(edit.id, { decision: 'allow' });
    await settled(session);
    expect(readFileSync(join(workspace, 'asked.txt'), 'utf8')).toBe('Howdy\n');
  });

  it('"Edit files, ask before commands" asks before a change outside the workspace', async () => {
    const { session, workspace, home, request } = await asking('outside', 'workspace');
    const outside = join(home.home, 'outside.txt');
    await session.start(workspace, `write file ${outside} with away`);
    expect(await request(1)).toMatchObject({ tool: 'fileChange', path: outside, diff: expect.stringContaining('\n+away\n') });
    await session.answerPermission((await request(1)).id, { decision: 'deny' });
    await settled(session);
    expect(existsSync(outside)).toBe(false);
  });

  it('Full access never asks: the command runs and the file is written, with no sandbox', async () => {
    const { session, workspace, events } = await asking('full', 'full');
    await bench.turn(session, `run command ${HELLO}`, workspace);
    expect(bench.texts(session)).toContain(`tool: $ ${HELLO} (exit 0)\nhello from node`);
    expect(turnMetadata()).toMatchObject({ sandbox_mode: 'danger-full-access' });
    await bench.turn(session, 'write file full.txt with yes');
    expect(readFileSync(join(workspace, 'full.txt'), 'utf8')).toBe('yes\n');
    expect(events).toEqual([]);
  });

  it('Stop (an interrupt) denies what is pending: cancelled with its reason, the turn ends, a late answer is refused', async () => {
    const { session, workspace, events, request } = await asking('interrupt', 'workspace');
    await session.start(workspace, `run command ${HELLO}`);
    const asked = await request(1);
    const before = Date.now();
    await session.interrupt();
    expect(Date.now() - before).toBeLessThan(2000);
    expect(events.at(-1)).toEqual({ type: 'permission-cancelled', requestId: asked.id, reason: 'The turn was interrupted.' });
    expect(session.isTurnActive()).toBe(false);
    expect(bench.texts(session).at(-1)).toBe('system: Interrupted: Codex stopped this turn.');
    expect(await session.answerPermission(asked.id, { decision: 'allow' })).toMatchObject({ ok: false, code: 'request_not_pending' });
    expect(bench.texts(session).filter((t) => t.startsWith('tool:'))).not.toContainEqual(expect.stringContaining('(exit 0)'));

    // Stopping the session does the same, with its own reason.
    await session.send(`run command ${HELLO}`);
    const again = await request(2);
    await session.stop();
    expect(events.at(-1)).toEqual({ type: 'permission-cancelled', requestId: again.id, reason: 'Codex was stopped.' });
  });
});
