import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fixtureText } from '../../../dev-env/fixtures/fixtures.ts';
import { movePath, parseJsonLines } from '../json-lines.ts';
import { readTranscript, readTranscriptFile, spliceCwd, TranscriptFold, TranscriptMove } from './transcript-file.ts';

// Transcripts the real Claude Code wrote against the scripted model (dev-env/fixtures/record-fixtures.ts).
const writeAndResume = fixtureText(FIXTURES.claude['write-and-resume'].file);
const subagent = fixtureText(FIXTURES.claude.subagent.file);
const cwd = FIXTURES.workspace;

/** `text` taken line by line through a TranscriptMove: the moved text, or the first refusal. */
function moveText(text: string, from = cwd, to = cwd, fold?: TranscriptFold) {
  const move = new TranscriptMove(from, to, fold);
  const out: string[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const taken = move.take(raw, i + 1);
    if (!taken.ok) return taken;
    if (taken.value !== '') out.push(taken.value);
  }
  const done = move.finish();
  return done.ok ? { ok: true as const, value: `${out.join('\n')}\n` } : done;
}

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
    expect(moveText(writeAndResume)).toMatchObject({ ok: true });
    expect(moveText(subagent)).toMatchObject({ ok: true });
  });

  it('refuses a transcript whose leafUuid names a message that is not in it', () => {
    const result = moveText(subagent.replace(/"leafUuid":"[^"]+"/, '"leafUuid":"c624bd74-b03c-4783-82ac-59ee5c94e737"'));
    expect(result).toMatchObject({ ok: false, code: 'not_resumable' });
    expect(result.ok ? '' : result.message).toContain('c624bd74-b03c-4783-82ac-59ee5c94e737');
  });

  it('refuses a transcript with no uuid lines or a damaged line', () => {
    expect(moveText('{"type":"summary","summary":"x"}\n')).toMatchObject({
      ok: false,
      message: expect.stringContaining('no message lines'),
    });
    expect(moveText('{"uuid":"a"}\n{oops\n')).toMatchObject({ ok: false, message: expect.stringContaining('line 2 is not JSON') });
    expect(moveText('{"uuid":"a"}\n[1]\n')).toMatchObject({ ok: false, message: expect.stringContaining('line 2 is not a JSON object') });
    expect(moveText('')).toMatchObject({ ok: false });
  });

  it('rewrites every cwd to the target workspace, keeping subfolders and every other field', () => {
    const rewritten = moveText(writeAndResume, cwd, '/home/me/work');
    if (!rewritten.ok) throw new Error(rewritten.message);
    const before = parseJsonLines(writeAndResume);
    const after = parseJsonLines(rewritten.value);
    if (!before.ok || !after.ok) throw new Error('fixture does not parse');
    const cwds = after.value.filter((l) => 'cwd' in l).map((l) => l.cwd);
    expect(cwds.length).toBeGreaterThan(5);
    expect(new Set(cwds)).toEqual(new Set(['/home/me/work']));
    expect(after.value.map(({ cwd: _cwd, ...rest }) => rest)).toEqual(before.value.map(({ cwd: _cwd, ...rest }) => rest));
    expect(moveText(rewritten.value, '/home/me/work', '/home/me/work')).toMatchObject({ ok: true });
    expect(movePath(`${cwd}/sub`, cwd, '/t')).toBe('/t/sub');
    expect(movePath('/elsewhere', cwd, '/t')).toBe('/t');
  });

  it("keeps each line's bytes but its cwd, and writes a line anew only when its cwd field is not found exactly once", () => {
    const plain = '{"uuid":"u1", "cwd":"/src/app/pkg" ,"message":{"content":"cd /src/app"}}';
    const twice = JSON.stringify({ uuid: 'u2', cwd: '/src/app', input: { cwd: '/src/app' } });
    const moved = moveText(`${plain}\n${twice}\n`, '/src/app', '/dst');
    if (!moved.ok) throw new Error(moved.message);
    const [first, second] = moved.value.split('\n');
    expect(first).toBe('{"uuid":"u1", "cwd":"/dst/pkg" ,"message":{"content":"cd /src/app"}}');
    expect(JSON.parse(second!)).toEqual({ uuid: 'u2', cwd: '/dst', input: { cwd: '/src/app' } });
  });

  it('splices cwd in the text exactly as parse-and-rewrite would move it, and leaves the doubtful lines to the rewrite', () => {
    // Real-format lines (the recorded fixtures), and the same lines from workspaces whose paths need escaping.
    const odd = ['C:\\Users\\me\\app', '/home/me/"quoted" app', '/home/me/ünïcode\ttab', '/home/me/app'];
    const lines = [...writeAndResume.split('\n'), ...subagent.split('\n')].filter((l) => l.trim() !== '');
    let spliced = 0;
    for (const from of [cwd, ...odd]) {
      for (const raw of lines) {
        const line = JSON.parse(raw.split(JSON.stringify(cwd)).join(JSON.stringify(from))) as Record<string, unknown>;
        const text = JSON.stringify(line);
        for (const to of ['/dst', 'D:\\w\\"x"', '/dst/ü']) {
          const moved = moveText(text, from, to);
          if (!moved.ok && moved.code === 'malformed') throw new Error(moved.message);
          // takeParts gives the same bytes as take, copying the line's own bytes around the new cwd.
          const parts = new TranscriptMove(from, to).takeParts(text, 1, Buffer.from(text));
          const taken = new TranscriptMove(from, to).take(text, 1);
          if (!parts.ok || !taken.ok) throw new Error('a real line was refused');
          expect(Buffer.concat(parts.value.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString()).toBe(taken.value);
          const out = typeof line.cwd === 'string' ? spliceCwd(text, line.cwd, movePath(line.cwd, from, to)) : null;
          if (out === null) continue;
          spliced += 1;
          expect(JSON.parse(out)).toEqual({ ...line, cwd: movePath(line.cwd as string, from, to) });
        }
      }
    }
    expect(spliced).toBeGreaterThan(50);
    // No cwd, a nested cwd only, a cwd key inside a string, an escaped or spaced field: nothing spliced.
    expect(spliceCwd('{"uuid":"u"}', '/a', '/b')).toBeNull();
    expect(spliceCwd('{"uuid":"u","input":{"cwd":"/a"}}', '/a', '/b')).toBeNull();
    expect(spliceCwd('{"c\\u0077d":"/a","x":{"cwd":"/a"}}', '/a', '/b')).toBeNull();
    expect(spliceCwd('{"note":"say \\"cwd\\":\\"/a\\"","x\\"cwd":"/a"}', '/a', '/b')).toBeNull();
    expect(spliceCwd('{"cwd":"\\/a"}', '/a', '/b')).toBeNull();
    // A top-level cwd after a string holding braces and escaped quotes is still found.
    expect(spliceCwd('{"t":"{[\\"}","cwd":"/a/s"}', '/a/s', '/b/s')).toBe('{"t":"{[\\"}","cwd":"/b/s"}');
    // Through TranscriptMove, a line the splice refuses is rewritten with the same result.
    const escapedKey = '{"uuid":"u","c\\u0077d":"/a/s","x":{"cwd":"/a/s"}}';
    const moved = moveText(`${escapedKey}\n`, '/a', '/b');
    if (!moved.ok) throw new Error(moved.message);
    expect(JSON.parse(moved.value)).toEqual({ uuid: 'u', cwd: '/b/s', x: { cwd: '/a/s' } });
  });

  it('folds the moved lines into the agent map, and reads a file line by line as the text reads', async () => {
    const fold = new TranscriptFold(false);
    expect(moveText(subagent, cwd, '/t', fold).ok).toBe(true);
    const { agents, transcript } = fold.snapshot();
    expect(agents.map((a) => [a.name, a.status])).toEqual(readTranscript(subagent).agents.map((a) => [a.name, a.status]));
    expect(transcript).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), 'baton-transcript-'));
    try {
      writeFileSync(join(dir, 't.jsonl'), writeAndResume);
      const fromFile = await readTranscriptFile(join(dir, 't.jsonl'));
      const fromText = readTranscript(writeAndResume);
      expect(fromFile.transcript.map((e) => [e.role, e.text])).toEqual(fromText.transcript.map((e) => [e.role, e.text]));
      expect(fromFile.sessionId).toBe(fromText.sessionId);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
