/**
 * The CLI adapters adopting a session the user already had: history read from the CLI's own file
 * (written as the real CLIs write them), nothing written, and the next message resumes that very
 * session id. The turn after adoption runs the stand-in CLIs (dev-env/stand-ins), which resume
 * from the same files; with the real CLIs this becomes the end-to-end test.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { writeClaudeSession, writeCodexRollout } from '../../dev-env/cli-session-files.ts';
import { StandInLab } from '../../dev-env/stand-ins/stand-ins.ts';
import { ClaudeCodeSession } from './claude-code/claude-code-session.ts';
import { CodexSession } from './codex/codex-session.ts';
import { waitForIdle } from './wait-idle.ts';

const lab = new StandInLab();
afterEach(() => lab.cleanup());

const turns = [
  { user: 'Fix the parser', assistant: 'I wrote the fix.', wrote: { file: 'parser.ts', content: 'export {};' } },
  { user: 'Now the tests', assistant: 'Tests pass.' },
];

describe('adopting a Claude Code session', () => {
  it('shows its history with the tool call, changes no file, and resumes the same session id on the next message', async () => {
    const { sandbox, workspace } = await lab.device('claude');
    const existing = writeClaudeSession(sandbox.env.CLAUDE_CONFIG_DIR!, workspace, { turns });
    const before = readFileSync(existing.path, 'utf8');
    const claude = lab.track(new ClaudeCodeSession({ env: sandbox.env }));
    expect(await claude.adoptExisting(existing.sessionId, workspace)).toEqual({ ok: true, value: undefined });
    expect(claude.claudeSessionId).toBe(existing.sessionId);
    const { transcript, agents } = claude.snapshot();
    expect(transcript.map((e) => [e.role, e.text])).toEqual([
      ['user', 'Fix the parser'],
      ['tool', `Write ${workspace}/parser.ts`],
      ['tool', `Result: File created successfully at: ${workspace}/parser.ts`],
      ['assistant', 'I wrote the fix.'],
      ['user', 'Now the tests'],
      ['assistant', 'Tests pass.'],
    ]);
    expect(agents.map((a) => a.id)).toEqual(['main']);
    expect(readFileSync(existing.path, 'utf8')).toBe(before);
    expect(await sandbox.invocations()).toEqual([]);

    await claude.send('carry on');
    await waitForIdle(claude, 10_000);
    const [call] = await sandbox.invocations();
    expect(call?.argv.slice(call.argv.indexOf('--resume'), call.argv.indexOf('--resume') + 2)).toEqual(['--resume', existing.sessionId]);
    expect(claude.snapshot().transcript.some((e) => e.text.startsWith(`Resumed session ${existing.sessionId}`))).toBe(true);
  });

  it("refuses a session id that is not one of the workspace's, starting nothing", async () => {
    const { sandbox, workspace } = await lab.device('claude-other');
    const other = await lab.device('claude-elsewhere');
    const elsewhere = writeClaudeSession(sandbox.env.CLAUDE_CONFIG_DIR!, other.workspace, { turns });
    const claude = lab.track(new ClaudeCodeSession({ env: sandbox.env }));
    expect(await claude.adoptExisting(elsewhere.sessionId, workspace)).toMatchObject({ ok: false, code: 'session_not_found' });
    expect(await claude.send('hello')).toMatchObject({ ok: false, code: 'not_started' });
  });
});

describe('adopting a Codex session', () => {
  it('shows its history, changes no file, and runs `exec resume` of the same thread on the next message', async () => {
    const { sandbox, workspace } = await lab.device('codex');
    const existing = writeCodexRollout(sandbox.env.CODEX_HOME!, workspace, { turns });
    const before = readFileSync(existing.path, 'utf8');
    const codex = lab.track(new CodexSession({ env: sandbox.env }));
    expect(await codex.adoptExisting(existing.threadId, workspace)).toEqual({ ok: true, value: undefined });
    expect(codex.codexThreadId).toBe(existing.threadId);
    expect(codex.snapshot().transcript.map((e) => [e.role, e.text])).toEqual([
      ['user', 'Fix the parser'],
      ['tool', expect.stringMatching(/^apply_patch \*\*\* Begin Patch\n\*\*\* Add File: parser.ts/)],
      ['assistant', 'I wrote the fix.'],
      ['user', 'Now the tests'],
      ['assistant', 'Tests pass.'],
    ]);
    expect(readFileSync(existing.path, 'utf8')).toBe(before);

    await codex.send('carry on');
    await waitForIdle(codex, 10_000);
    const [call] = await sandbox.invocations();
    expect(call?.argv).toEqual(expect.arrayContaining(['resume', existing.threadId]));
    expect(codex.snapshot().transcript.some((e) => e.text.startsWith(`Resumed session ${existing.threadId}`))).toBe(true);
  });
});
