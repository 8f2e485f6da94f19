/**
 * The CLI adapters adopting a session the user already had, with the real `claude` and `codex`: a
 * session made by running the CLI itself (as a user did before Baton) is listed, adopted with its
 * history read from the CLI's own file (nothing written), and the next message resumes that very
 * session — the scripted model server receives the earlier conversation with it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeClaudeSession } from '../../dev-env/cli-session-files.ts';
import type { AgentHome } from '../../dev-env/agent-clis/agent-homes.ts';
import { useCliBench } from '../../dev-env/agent-clis/cli-bench.ts';
import { ClaudeCodeSession } from './claude-code/claude-code-session.ts';
import { findClaudeSession } from './claude-code/session-list.ts';
import { CodexSession } from './codex/codex-session.ts';
import { findCodexSession } from './codex/rollout-list.ts';
import { listExistingSessions } from './existing-sessions.ts';

const bench = useCliBench();
const FIRST = 'write file plan.txt with the plan';

/** Runs the CLI itself in `workspace` (no Baton): one turn that writes a file, as a user would have. */
async function userRan(cli: 'claude' | 'codex', home: AgentHome, workspace: string): Promise<void> {
  const args =
    cli === 'claude'
      ? ['-p', '--permission-mode', 'acceptEdits', FIRST]
      : ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', FIRST];
  const ran = await bench.lab.run(cli, args, { cwd: workspace, env: home.env });
  if (ran.code !== 0) throw new Error(`${cli} failed: ${ran.stderr}`);
}

/** The one session the CLI keeps for `workspace`, as the adoption listing finds it. */
async function theSession(provider: 'claude-code' | 'codex', home: AgentHome, workspace: string): Promise<string> {
  const listed = await listExistingSessions(provider, workspace, home.env);
  if (!listed.ok) throw new Error(listed.message);
  expect(listed.value.map((s) => s.title)).toEqual([FIRST]);
  return listed.value[0]!.sessionId;
}

describe('adopting a session the user ran with the CLI before Baton', () => {
  it('Claude Code: history with the tool call, no file changed, and the next message resumes the same session with its history', async () => {
    const { home, workspace } = await bench.device('claude');
    await userRan('claude', home, workspace);
    const id = await theSession('claude-code', home, workspace);
    const file = (await findClaudeSession(home.env, workspace, id))!;
    const before = readFileSync(file, 'utf8');

    const claude = bench.track(new ClaudeCodeSession({ env: home.env }));
    expect(await claude.adoptExisting(id, workspace)).toEqual({ ok: true, value: undefined });
    expect(claude.claudeSessionId).toBe(id);
    expect(bench.texts(claude)).toEqual([
      `user: ${FIRST}`,
      `tool: Write ${workspace}/plan.txt`,
      expect.stringMatching(/^tool: Result: File created successfully/),
      'assistant: Wrote plan.txt.',
    ]);
    expect(readFileSync(file, 'utf8')).toBe(before);

    await bench.turn(claude, 'what did I say first?');
    expect(bench.texts(claude).at(-1)).toBe(`assistant: I remember: ${FIRST}`);
    const request = bench.lastRequest('anthropic-messages');
    expect(request?.userTexts).toEqual([FIRST, 'what did I say first?']);
    expect(request?.headers['x-claude-code-session-id']).toBe(id);
  });

  it('Codex: history with the patch, no file changed, and the next message resumes the same thread with its history', async () => {
    const { home, workspace } = await bench.device('codex');
    await userRan('codex', home, workspace);
    const id = await theSession('codex', home, workspace);
    const file = (await findCodexSession(home.env, workspace, id))!;
    const before = readFileSync(file, 'utf8');

    const codex = bench.track(new CodexSession({ env: home.env }));
    expect(await codex.adoptExisting(id, workspace)).toEqual({ ok: true, value: undefined });
    expect(codex.codexThreadId).toBe(id);
    expect(bench.texts(codex)).toEqual([
      `user: ${FIRST}`,
      expect.stringMatching(/^tool: apply_patch \*\*\* Begin Patch\n\*\*\* Add File: plan.txt/),
      'assistant: Wrote plan.txt.',
    ]);
    expect(readFileSync(file, 'utf8')).toBe(before);

    await bench.turn(codex, 'what did I say first?');
    expect(bench.texts(codex).at(-1)).toBe(`assistant: I remember: ${FIRST}`);
    const request = bench.lastRequest('openai-responses');
    expect(request?.userTexts).toEqual(expect.arrayContaining([FIRST, 'what did I say first?']));
    expect(request?.headers['thread-id'] ?? request?.headers['session-id']).toBe(id);
  });

  it("refuses a session id that is not one of the workspace's, starting nothing", async () => {
    const { home, workspace } = await bench.device('elsewhere');
    const other = await bench.device('other');
    const elsewhere = writeClaudeSession(home.claudeConfigDir, other.workspace, { turns: [{ user: 'x', assistant: 'y' }] });
    const claude = bench.track(new ClaudeCodeSession({ env: home.env }));
    expect(await claude.adoptExisting(elsewhere.sessionId, workspace)).toMatchObject({ ok: false, code: 'session_not_found' });
    expect(await claude.send('hello')).toMatchObject({ ok: false, code: 'not_started' });
  });
});
