/**
 * Fork from here, the provider's part, with the real `claude` and `codex`: a checkpoint's CLI session
 * imported as a fork on the very device that still holds the original (its own clone at another
 * path) gets a new CLI session id, remembers the history, and leaves every byte of the original's
 * CLI file as it was — through the fork's turn and after it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResumeData } from '../../shared/provider.ts';
import type { AgentHome } from '../../dev-env/agent-clis/agent-homes.ts';
import { SAMPLE_CONTINUATION as continuation, useCliBench } from '../../dev-env/agent-clis/cli-bench.ts';
import { ClaudeCodeSession } from './claude-code/claude-code-session.ts';
import { projectSlug } from './claude-code/paths.ts';
import { CodexSession } from './codex/codex-session.ts';
import { findRollout } from './codex/rollout.ts';
import { resumeProvider } from './resume.ts';

const bench = useCliBench();

async function exportOf(session: ClaudeCodeSession | CodexSession): Promise<ResumeData> {
  const exported = await session.exportResumeData();
  if (!exported.ok) throw new Error(exported.message);
  return JSON.parse(JSON.stringify(exported.value)) as ResumeData;
}

/** The original's session on `home` after one turn, the data a checkpoint of it carries, and a second clone for the fork. */
async function original<T extends ClaudeCodeSession | CodexSession>(make: (home: AgentHome) => T) {
  const laptop = await bench.device('laptop');
  const forkWorkspace = (await bench.device('fork')).workspace;
  const source = bench.track(make(laptop.home));
  await bench.turn(source, 'my secret word is apple', laptop.workspace);
  return { laptop, forkWorkspace, source, data: await exportOf(source) };
}

describe('Fork from here: the provider forks the CLI session (the real CLIs)', () => {
  it('Claude Code: a new session id, the history remembered, the original transcript file unchanged', async () => {
    const { laptop, forkWorkspace, source, data } = await original((home) => new ClaudeCodeSession({ env: home.env }));
    const id = source.claudeSessionId!;
    const originalFile = join(laptop.home.claudeConfigDir, 'projects', projectSlug(laptop.workspace), `${id}.jsonl`);
    const before = await readFile(originalFile);

    const fork = bench.track(new ClaudeCodeSession({ env: laptop.home.env }));
    const resumed = await resumeProvider(fork, { workspace: forkWorkspace, resumeData: data, continuation, fork: true });
    expect(resumed).toMatchObject({ ok: true, value: { path: 'checkpoint-import', reason: expect.stringContaining('was forked here') } });
    const forkId = fork.claudeSessionId!;
    expect(forkId).not.toBe(id);
    expect(await readFile(originalFile)).toEqual(before);
    await bench.turn(fork, 'what did I say first?');
    expect(bench.texts(fork).at(-1)).toBe('assistant: I remember: my secret word is apple');
    expect(bench.lastRequest('anthropic-messages')?.headers['x-claude-code-session-id']).toBe(forkId);
    expect(await readFile(originalFile)).toEqual(before);
    // The original goes on as it was, its own id and history.
    await bench.turn(source, 'say hello');
    expect(bench.lastRequest('anthropic-messages')).toMatchObject({ userTexts: ['my secret word is apple', 'say hello'] });
    expect(bench.lastRequest('anthropic-messages')?.headers['x-claude-code-session-id']).toBe(id);
  });

  it('Codex: a new thread id, the history remembered, the original rollout unchanged', async () => {
    const { laptop, forkWorkspace, source, data } = await original((home) => new CodexSession({ env: home.env }));
    const id = source.codexThreadId!;
    const rollout = (await findRollout(laptop.home.codexHome, id))!;
    const before = await readFile(join(laptop.home.codexHome, rollout));

    const fork = bench.track(new CodexSession({ env: laptop.home.env }));
    const resumed = await resumeProvider(fork, { workspace: forkWorkspace, resumeData: data, continuation, fork: true });
    expect(resumed).toMatchObject({ ok: true, value: { path: 'checkpoint-import', reason: expect.stringContaining('was forked here') } });
    const forkId = fork.codexThreadId!;
    expect(forkId).not.toBe(id);
    expect(await findRollout(laptop.home.codexHome, forkId)).not.toBeNull();
    await bench.turn(fork, 'what did I say first?');
    expect(bench.texts(fork).at(-1)).toContain('my secret word is apple');
    expect(await readFile(join(laptop.home.codexHome, rollout))).toEqual(before);
    expect(await findRollout(laptop.home.codexHome, id)).toBe(rollout);
  });
});
