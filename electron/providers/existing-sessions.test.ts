/**
 * Listing this machine's Claude Code and Codex sessions of a workspace, against files written as the
 * real CLIs write them (dev-env/cli-session-files.ts) in throwaway CLI homes.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeClaudeSession, writeCodexRollout } from '../../dev-env/cli-session-files.ts';
import { claudeTranscriptIn, FIXTURES, fixtureText } from '../../dev-env/fixtures/fixtures.ts';
import { projectSlug } from './claude-code/paths.ts';
import { listExistingSessions } from './existing-sessions.ts';

let root: string;
let env: NodeJS.ProcessEnv;
let workspace: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-existing-')));
  env = { HOME: join(root, 'home'), CLAUDE_CONFIG_DIR: join(root, 'claude'), CODEX_HOME: join(root, 'codex') };
  workspace = join(root, 'work', 'app');
  mkdirSync(workspace, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const day = (d: number) => new Date(Date.UTC(2026, 10, d, 9, 30));
const turn = (user: string) => ({ user, assistant: `Done: ${user}` });

async function listed(provider: string, where = workspace) {
  const result = await listExistingSessions(provider, where, env);
  if (!result.ok) throw new Error(result.message);
  return result.value.map(({ sessionId, title, updatedAt }) => ({ sessionId, title, updatedAt }));
}

describe('Claude Code sessions of a workspace', () => {
  it("lists the workspace's transcripts newest first, titled by the first prompt, timed by the last write", async () => {
    const older = writeClaudeSession(env.CLAUDE_CONFIG_DIR!, workspace, {
      turns: [{ ...turn('Fix the flaky parser test\nIt fails one run in five.'), wrote: { file: 'a.txt', content: 'x' } }, turn('more')],
      startedAt: day(1),
      modifiedAt: day(3),
    });
    const newer = writeClaudeSession(env.CLAUDE_CONFIG_DIR!, workspace, {
      turns: [turn('Add a README')],
      startedAt: day(2),
      modifiedAt: day(4),
    });
    expect(await listed('claude-code')).toEqual([
      { sessionId: newer.sessionId, title: 'Add a README', updatedAt: day(4).getTime() },
      { sessionId: older.sessionId, title: 'Fix the flaky parser test', updatedAt: day(3).getTime() },
    ]);
  });

  it('leaves out sessions of other folders, even one whose project folder has the same name', async () => {
    // "/…/work/app" and "/…/work-app" make the same folder name; only the lines' cwd tells them apart.
    const twin = join(root, 'work-app');
    mkdirSync(twin);
    expect(projectSlug(twin)).toBe(projectSlug(workspace));
    writeClaudeSession(env.CLAUDE_CONFIG_DIR!, twin, { turns: [turn('twin')] });
    writeClaudeSession(env.CLAUDE_CONFIG_DIR!, root, { turns: [turn('parent folder')] });
    const mine = writeClaudeSession(env.CLAUDE_CONFIG_DIR!, workspace, { turns: [turn('mine')] });
    expect((await listed('claude-code')).map((s) => s.sessionId)).toEqual([mine.sessionId]);
  });

  it('titles an interactive session by its first prompt, skipping the caveat and slash-command lines', async () => {
    const interactive = writeClaudeSession(env.CLAUDE_CONFIG_DIR!, workspace, { turns: [turn('Explain the build')], interactive: true });
    const commandOnly = writeClaudeSession(env.CLAUDE_CONFIG_DIR!, workspace, { turns: [], interactive: true, startedAt: day(1) });
    const titles = Object.fromEntries((await listed('claude-code')).map((s) => [s.sessionId, s.title]));
    expect(titles).toEqual({ [interactive.sessionId]: 'Explain the build', [commandOnly.sessionId]: '/model' });
  });

  it('finds the sessions of a workspace whose path is over 200 characters (folder cut and hashed)', async () => {
    const deep = join(root, ...Array.from({ length: 12 }, (_, i) => `segment-number-${i}.x_y`));
    mkdirSync(deep, { recursive: true });
    expect(deep.length).toBeGreaterThan(200);
    const session = writeClaudeSession(env.CLAUDE_CONFIG_DIR!, deep, { turns: [turn('deep work')] });
    expect(session.path).toContain(`${projectSlug(deep).slice(0, 200)}-`);
    expect(await listed('claude-code', deep)).toEqual([expect.objectContaining({ sessionId: session.sessionId, title: 'deep work' })]);
  });
});

describe('Codex sessions of a workspace', () => {
  it('lists the threads that started in the workspace newest first, titled by the first prompt (context blocks skipped)', async () => {
    const first = writeCodexRollout(env.CODEX_HOME!, workspace, {
      turns: [turn('Port the CLI to Rust')],
      startedAt: day(1),
      modifiedAt: day(5),
    });
    const second = writeCodexRollout(env.CODEX_HOME!, workspace, {
      turns: [{ ...turn('write file notes.md with hi'), wrote: { file: 'notes.md', content: 'hi' } }],
      startedAt: day(2),
      modifiedAt: day(3),
    });
    writeCodexRollout(env.CODEX_HOME!, join(root, 'elsewhere'), { turns: [turn('not here')], startedAt: day(4) });
    expect(await listed('codex')).toEqual([
      { sessionId: first.threadId, title: 'Port the CLI to Rust', updatedAt: day(5).getTime() },
      { sessionId: second.threadId, title: 'write file notes.md with hi', updatedAt: day(3).getTime() },
    ]);
  });

  it('skips a compressed rollout this Node cannot read, and a damaged one, without failing the listing', async () => {
    const readable = writeCodexRollout(env.CODEX_HOME!, workspace, { turns: [turn('readable')] });
    const folder = join(env.CODEX_HOME!, 'sessions', '2026', '11', '01');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'rollout-2026-11-01T09-00-00-01a22cf5-0000-7000-8000-000000000001.jsonl.zst'),
      Buffer.from([40, 181, 47, 253, 0]),
    );
    writeFileSync(join(folder, 'rollout-2026-11-01T09-00-01-01a22cf5-0000-7000-8000-000000000002.jsonl'), '{not json\n');
    expect((await listed('codex')).map((s) => s.sessionId)).toEqual([readable.threadId]);
  });
});

describe('sessions recorded with the real CLIs (dev-env/fixtures)', () => {
  it('lists the recorded Claude Code transcript and Codex rollout, placed as the CLIs keep them, by their first prompts', async () => {
    const claude = FIXTURES.claude['write-and-resume'];
    const folder = join(env.CLAUDE_CONFIG_DIR!, 'projects', projectSlug(workspace));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${claude.sessionId}.jsonl`), claudeTranscriptIn(claude.file, workspace));
    const codex = FIXTURES.codex['write-and-resume'];
    const rollout = fixtureText(codex.file)
      .split('\n')
      .map((line) => (line.includes('"session_meta"') ? line.replaceAll(FIXTURES.workspace, workspace) : line))
      .join('\n');
    mkdirSync(join(env.CODEX_HOME!, codex.relativePath, '..'), { recursive: true });
    writeFileSync(join(env.CODEX_HOME!, codex.relativePath), rollout);
    expect((await listed('claude-code')).map(({ sessionId, title }) => ({ sessionId, title }))).toEqual([
      { sessionId: claude.sessionId, title: claude.prompts[0] },
    ]);
    expect((await listed('codex')).map(({ sessionId, title }) => ({ sessionId, title }))).toEqual([
      { sessionId: codex.threadId, title: codex.prompts[0] },
    ]);
  });
});

describe('what cannot be listed', () => {
  it('refuses an unknown provider, a provider without sessions to adopt, and a workspace that does not exist', async () => {
    expect(await listExistingSessions('nobody', workspace, env)).toMatchObject({ ok: false, code: 'unknown_provider' });
    expect(await listExistingSessions('demo', workspace, env)).toMatchObject({
      ok: false,
      code: 'unsupported',
      message: 'Demo agent has no sessions to adopt.',
    });
    expect(await listExistingSessions('codex', join(root, 'missing'), env)).toMatchObject({ ok: false, code: 'invalid_path' });
  });

  it('lists nothing when the CLI has never run on this machine', async () => {
    expect(await listed('claude-code')).toEqual([]);
    expect(await listed('codex')).toEqual([]);
  });
});
