import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { movePath, parseJsonLines } from '../json-lines.ts';
import { checkResumable, readTranscript, rewriteCwd } from './transcript-file.ts';

const fixtures = join(import.meta.dirname, '../../../../shared/fixtures/claude-code');
const fixture = (name: string): Promise<string> => readFile(join(fixtures, name), 'utf8');

describe('Claude transcript file', () => {
  it('reads task_sdk.jsonl into a subagent under the main agent, finished by its tool_result', async () => {
    const { agents, transcript } = readTranscript(await fixture('task_sdk.jsonl'));
    const main = agents.find((a) => a.id === 'main');
    const sub = agents.find((a) => a.parentId !== null);
    expect(main).toMatchObject({ parentId: null, role: 'main' });
    expect(sub).toMatchObject({
      id: 'toolu_01DAkBr3THZbTNLPPBHiX1sp',
      parentId: 'main',
      name: 'Search recent AI news',
      role: 'general-purpose',
      status: 'done',
    });
    expect(agents).toHaveLength(2);
    expect(transcript[0]).toMatchObject({ role: 'user', agentId: 'main' });
    expect(transcript[0]?.text).toContain('Show me a sample of using Task tool');
    expect(transcript.some((e) => e.agentId === sub?.id && e.text.includes('5 Major AI Breakthroughs'))).toBe(true);
    expect(transcript.at(-1)).toMatchObject({ role: 'tool', text: expect.stringContaining('Read /Users/steve/.claude/projects') });
    expect(transcript[0]?.at).toBe(Date.parse('2025-08-11T00:56:53.561Z'));
  });

  it('reads a plain tool call as a tool entry, not a subagent', async () => {
    const { agents, transcript } = readTranscript(await fixture('1-continue-run-ls-tool.jsonl'));
    expect(agents.map((a) => a.id)).toEqual(['main']);
    expect(transcript.map((e) => e.role)).toEqual(['user', 'assistant', 'user', 'tool', 'tool', 'assistant']);
    expect(transcript[3]?.text).toBe('LS /Users/kirilldubovitskiy/projects/happy/handy-cli/notes/test-project');
  });

  it('accepts a transcript whose summaries point at its own lines', async () => {
    expect(checkResumable(await fixture('1-continue-run-ls-tool.jsonl'))).toEqual({ ok: true, value: 7 });
    expect(checkResumable(await fixture('0-say-lol-session.jsonl'))).toEqual({ ok: true, value: 2 });
  });

  it('refuses a transcript with a dangling leafUuid (task_sdk.jsonl names one from another session)', async () => {
    const result = checkResumable(await fixture('task_sdk.jsonl'));
    expect(result).toMatchObject({ ok: false, code: 'not_resumable' });
    expect(result.ok ? '' : result.message).toContain('c624bd74-b03c-4783-82ac-59ee5c94e737');
  });

  it('refuses a transcript with no uuid lines or a damaged line', () => {
    expect(checkResumable('{"type":"summary","summary":"x"}\n')).toMatchObject({
      ok: false,
      message: expect.stringContaining('no message lines'),
    });
    expect(checkResumable('{"uuid":"a"}\n{oops\n')).toMatchObject({ ok: false, message: expect.stringContaining('line 2 is not JSON') });
    expect(checkResumable('')).toMatchObject({ ok: false });
  });

  it('rewrites every cwd to the target workspace, keeping subfolders', async () => {
    const from = '/Users/kirilldubovitskiy/projects/happy/handy-cli/notes/test-project';
    const rewritten = rewriteCwd(await fixture('1-continue-run-ls-tool.jsonl'), from, '/home/me/work');
    if (!rewritten.ok) throw new Error(rewritten.message);
    const lines = parseJsonLines(rewritten.value);
    if (!lines.ok) throw new Error(lines.message);
    expect(lines.value.filter((l) => 'cwd' in l).map((l) => l.cwd)).toEqual(Array(6).fill('/home/me/work'));
    expect(lines.value[0]).toEqual({
      type: 'summary',
      summary: 'Casual Chat: Simple Greeting Exchange',
      leafUuid: 'deae7c10-1e9a-466a-bbd0-1cd31b43d823',
    });
    expect(checkResumable(rewritten.value)).toEqual({ ok: true, value: 7 });
    expect(movePath(`${from}/sub`, from, '/t')).toBe('/t/sub');
    expect(movePath('/elsewhere', from, '/t')).toBe('/t');
  });
});
