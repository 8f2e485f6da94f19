import { describe, expect, it } from 'vitest';
import { FIXTURES, fixtureText } from '../../../dev-env/fixtures/fixtures.ts';
import { movePath, parseJsonLines } from '../json-lines.ts';
import { checkResumable, readTranscript, rewriteCwd } from './transcript-file.ts';

// Transcripts the real Claude Code wrote against the scripted model (dev-env/fixtures/record-fixtures.ts).
const writeAndResume = fixtureText(FIXTURES.claude['write-and-resume'].file);
const subagent = fixtureText(FIXTURES.claude.subagent.file);
const cwd = FIXTURES.workspace;

describe('Claude transcript file', () => {
  it('reads an Agent call into a subagent under the main agent, finished by its tool_result', () => {
    const { agents, transcript, sessionId } = readTranscript(subagent);
    expect(sessionId).toBe(FIXTURES.claude.subagent.sessionId);
    const sub = agents.find((a) => a.parentId !== null);
    expect(agents).toHaveLength(2);
    expect(agents.find((a) => a.id === 'main')).toMatchObject({ parentId: null, role: 'main' });
    expect(sub).toMatchObject({ parentId: 'main', name: 'Scripted subagent', role: 'general-purpose', status: 'done' });
    expect(transcript[0]).toMatchObject({ role: 'user', agentId: 'main', text: 'use a subagent' });
    expect(transcript.some((e) => e.agentId === sub?.id && e.text.includes('Hello from the subagent.'))).toBe(true);
    expect(transcript.at(-1)).toMatchObject({ role: 'assistant', agentId: 'main', text: expect.stringContaining('The subagent answered') });
  });

  it('reads plain tool calls (Write, Bash) as tool entries, not subagents, with their times', () => {
    const { agents, transcript } = readTranscript(writeAndResume);
    expect(agents.map((a) => a.id)).toEqual(['main']);
    expect(transcript.map((e) => [e.role, e.text.split('\n')[0]?.slice(0, 60)])).toEqual([
      ['user', 'write file hello.txt with Hello from Claude'],
      ['tool', `Write ${cwd}/hello.txt`],
      ['tool', `Result: File created successfully at: ${cwd}/hello.txt`.slice(0, 60)],
      ['assistant', 'Wrote hello.txt.'],
      ['user', 'run command ls'],
      ['tool', 'Bash ls'],
      ['tool', 'Result: README.md'],
      ['assistant', 'Command output: README.md'],
      ['user', 'what did I say first?'],
      ['assistant', 'I remember: write file hello.txt with Hello from Claude'],
    ]);
    expect(transcript.every((e, i) => i === 0 || e.at >= (transcript[i - 1]?.at ?? 0))).toBe(true);
    expect(transcript[0]?.at).toBeGreaterThan(Date.parse('2026-01-01'));
  });

  it('accepts a transcript whose last-prompt lines point at its own messages', () => {
    expect(checkResumable(writeAndResume)).toMatchObject({ ok: true });
    expect(checkResumable(subagent)).toMatchObject({ ok: true });
  });

  it('refuses a transcript whose leafUuid names a message that is not in it', () => {
    const result = checkResumable(subagent.replace(/"leafUuid":"[^"]+"/, '"leafUuid":"c624bd74-b03c-4783-82ac-59ee5c94e737"'));
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

  it('rewrites every cwd to the target workspace, keeping subfolders and every other field', () => {
    const rewritten = rewriteCwd(writeAndResume, cwd, '/home/me/work');
    if (!rewritten.ok) throw new Error(rewritten.message);
    const before = parseJsonLines(writeAndResume);
    const after = parseJsonLines(rewritten.value);
    if (!before.ok || !after.ok) throw new Error('fixture does not parse');
    const cwds = after.value.filter((l) => 'cwd' in l).map((l) => l.cwd);
    expect(cwds.length).toBeGreaterThan(5);
    expect(new Set(cwds)).toEqual(new Set(['/home/me/work']));
    expect(after.value.map(({ cwd: _cwd, ...rest }) => rest)).toEqual(before.value.map(({ cwd: _cwd, ...rest }) => rest));
    expect(checkResumable(rewritten.value)).toMatchObject({ ok: true });
    expect(movePath(`${cwd}/sub`, cwd, '/t')).toBe('/t/sub');
    expect(movePath('/elsewhere', cwd, '/t')).toBe('/t');
  });
});
