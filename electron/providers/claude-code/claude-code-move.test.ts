/**
 * Moving a Claude Code session between two "devices" (each its own HOME and CLAUDE_CONFIG_DIR, each
 * its own clone at a different path) with the real `claude`: export on one, import on the other,
 * and the next turn continues the same Claude session with its history.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResumeData } from '../../../shared/provider.ts';
import { DUMMY_ANTHROPIC_KEY, type AgentHome } from '../../../dev-env/agent-clis/agent-homes.ts';
import { SAMPLE_CONTINUATION as continuation, useCliBench } from '../../../dev-env/agent-clis/cli-bench.ts';
import { resumeProvider } from '../resume.ts';
import { ClaudeCodeSession } from './claude-code-session.ts';
import { waitForIdle } from '../wait-idle.ts';
import { projectSlug } from './paths.ts';

const MOVE_NOTE = 'Baton: this session just moved from the device "laptop" to "desktop"; you now run on desktop.';

const bench = useCliBench();

const claude = (home: AgentHome, deviceName?: string): ClaudeCodeSession =>
  bench.track(new ClaudeCodeSession({ env: home.env, ...(deviceName ? { deviceName } : {}) }));
const lastRequest = () => bench.lastRequest('anthropic-messages');

/** Runs a first turn on `home` in `workspace` and exports the session as a checkpoint would carry it. */
async function exportedSession(home: AgentHome, workspace: string, prompt: string): Promise<{ id: string; data: ResumeData }> {
  const source = claude(home);
  await bench.turn(source, prompt, workspace);
  const exported = await source.exportResumeData();
  if (!exported.ok) throw new Error(exported.message);
  return { id: source.claudeSessionId ?? '', data: JSON.parse(JSON.stringify(exported.value)) as ResumeData };
}

/** Imports `data` on `home` in `workspace`, then asks what was said first. */
async function continueOn(home: AgentHome, workspace: string, data: ResumeData, deviceName?: string): Promise<ClaudeCodeSession> {
  const target = claude(home, deviceName);
  expect(await resumeProvider(target, { workspace, resumeData: data, continuation })).toEqual({
    ok: true,
    value: { path: 'checkpoint-import' },
  });
  await bench.turn(target, 'what did I say first?');
  return target;
}

describe('Claude Code session moved between devices (the real claude)', () => {
  it("reads Baton's note with the first input after the move: the model is sent it, the transcript keeps the person's words", async () => {
    const laptop = await bench.device('laptop');
    const desktop = await bench.device('desktop', 'elsewhere/deeper');
    const { data } = await exportedSession(laptop.home, laptop.workspace, 'say hello');
    const target = claude(desktop.home);
    expect((await resumeProvider(target, { workspace: desktop.workspace, resumeData: data, continuation })).ok).toBe(true);
    expect((await target.send('say hello', MOVE_NOTE)).ok).toBe(true);
    expect(await waitForIdle(target, 30_000)).toBe(true);
    expect(lastRequest()?.lastUserText).toBe(`${MOVE_NOTE}\n\nsay hello`);
    expect(
      bench
        .texts(target)
        .filter((t) => t.startsWith('user:'))
        .at(-1),
    ).toBe('user: say hello');
    expect(bench.texts(target).at(-1)).toBe('assistant: Hello from the scripted model.');
  });

  it('continues the same session id on the other device, in a workspace at another path, with its history', async () => {
    const laptop = await bench.device('laptop');
    const desktop = await bench.device('desktop', 'elsewhere/deeper');
    const { id, data } = await exportedSession(laptop.home, laptop.workspace, 'write file notes.txt with the plan');
    expect(data).toMatchObject({ provider: 'claude-code', format: 'claude-code/transcript@2', sessionId: id });
    expect(data.files?.[0]).toMatchObject({ name: 'transcript', path: expect.stringContaining(laptop.home.claudeConfigDir) });

    const target = await continueOn(desktop.home, desktop.workspace, data, 'desktop');
    expect(target.claudeSessionId).toBe(id);
    // The note is read on every device: it names the one the session was imported on.
    expect(bench.texts(target)).toContain(`system: Claude Code session ${id} was imported on desktop; the next message resumes it.`);
    expect(bench.texts(target).at(-1)).toBe('assistant: I remember: write file notes.txt with the plan');
    expect(lastRequest()).toMatchObject({ userTexts: ['write file notes.txt with the plan', 'what did I say first?'] });
    expect(lastRequest()?.headers['x-claude-code-session-id']).toBe(id);
    expect(existsSync(join(desktop.home.claudeConfigDir, 'projects', projectSlug(desktop.workspace), `${id}.jsonl`))).toBe(true);
    expect(existsSync(join(desktop.workspace, 'notes.txt'))).toBe(false); // the file moves by git, not by the checkpoint
  });

  it('works in workspace paths over 200 and over 255 characters: Claude names the folder by the same rule', async () => {
    const deep = (n: number): string => Array.from({ length: n }, (_, i) => `segment.${i} with_dots and spaces`).join('/');
    const laptop = await bench.device('laptop', deep(8));
    const desktop = await bench.device('desktop', deep(12));
    expect(laptop.workspace.length).toBeGreaterThan(255);
    const { id, data } = await exportedSession(laptop.home, laptop.workspace, 'my secret word is apple');
    const slug = projectSlug(laptop.workspace);
    expect(slug).toMatch(/^.{200}-[0-9a-z]+$/);
    expect(existsSync(join(laptop.home.claudeConfigDir, 'projects', slug, `${id}.jsonl`))).toBe(true);

    const target = await continueOn(desktop.home, desktop.workspace, data);
    expect(target.claudeSessionId).toBe(id);
    expect(bench.texts(target).at(-1)).toBe('assistant: I remember: my secret word is apple');
  });

  it('falls back to summary continuation, with the reason, when the carried transcript fails its check', async () => {
    const laptop = await bench.device('laptop');
    const desktop = await bench.device('desktop');
    const { id, data } = await exportedSession(laptop.home, laptop.workspace, 'say hello');
    const transcript = data.files!.find((f) => f.name === 'transcript')!;
    const damaged = join(laptop.home.root, 'damaged.jsonl');
    await writeFile(damaged, (await readFile(transcript.path, 'utf8')).replace(/"leafUuid":"[^"]+"/, '"leafUuid":"gone"'));
    const broken = { ...data, files: data.files!.map((f) => (f === transcript ? { ...f, path: damaged } : f)) };
    const target = claude(desktop.home);
    const outcome = await resumeProvider(target, { workspace: desktop.workspace, resumeData: broken, continuation });
    expect(outcome).toMatchObject({ ok: true, value: { path: 'summary-continuation', reason: expect.stringContaining('leafUuid gone') } });
    await bench.turn(target, 'what did I say first?');
    expect(target.claudeSessionId).not.toBe(id);
    expect(lastRequest()?.userTexts[0]).toMatch(/^This is a continuation of the session "Plan the release"/);
  });

  it('moved away and back, replaces its earlier copy here and keeps the session id', async () => {
    const [desktop, laptop] = [await bench.device('desktop'), await bench.device('laptop')];
    const { id, data } = await exportedSession(desktop.home, desktop.workspace, 'my secret word is apple');
    const away = await continueOn(laptop.home, laptop.workspace, data);
    const back = await away.exportResumeData();
    if (!back.ok) throw new Error(back.message);
    const home = await continueOn(desktop.home, desktop.workspace, JSON.parse(JSON.stringify(back.value)) as ResumeData);
    expect(home.claudeSessionId).toBe(id);
    expect(lastRequest()).toMatchObject({ userTexts: ['my secret word is apple', 'what did I say first?', 'what did I say first?'] });
  });

  it('keeps the session continued here in the terminal while it was away, and imports the moved one as a fork', async () => {
    const [desktop, laptop] = [await bench.device('desktop'), await bench.device('laptop')];
    const { id, data } = await exportedSession(desktop.home, desktop.workspace, 'my secret word is apple');
    const away = claude(laptop.home);
    expect((await resumeProvider(away, { workspace: laptop.workspace, resumeData: data, continuation })).ok).toBe(true);
    await bench.turn(away, 'say hello');
    // Meanwhile the user goes on with the session on the desktop, in a terminal.
    const run = (prompt: string) =>
      bench.lab.run('claude', ['-p', '--resume', id, prompt], { cwd: desktop.workspace, env: desktop.home.env });
    expect(await run('my terminal word is pear')).toMatchObject({ code: 0 });
    const desktopCopy = join(desktop.home.claudeConfigDir, 'projects', projectSlug(desktop.workspace), `${id}.jsonl`);
    const continued = await readFile(desktopCopy);

    // Then the session moves back from the laptop.
    const back = await away.exportResumeData();
    if (!back.ok) throw new Error(back.message);
    const home = claude(desktop.home, 'desktop');
    const resumed = await resumeProvider(home, { workspace: desktop.workspace, resumeData: back.value, continuation });
    expect(resumed).toMatchObject({
      ok: true,
      value: { path: 'checkpoint-import', reason: expect.stringContaining('imported as a fork') },
    });
    const fork = home.claudeSessionId!;
    expect(fork).not.toBe(id);
    expect(bench.texts(home).at(-1)).toContain(`imported as a fork, session ${fork}.`);
    // Read on every device, the note names the one that forked.
    expect(bench.texts(home).at(-1)).toContain(`system: Desktop already had Claude Code session ${id},`);
    expect(bench.texts(home).at(-1)).toContain('in a terminal on desktop');
    expect(await readFile(desktopCopy)).toEqual(continued);
    await bench.turn(home, 'what did I say first?');
    expect(bench.texts(home).at(-1)).toBe('assistant: I remember: my secret word is apple');
    expect(lastRequest()).toMatchObject({ userTexts: ['my secret word is apple', 'say hello', 'what did I say first?'] });
    expect(lastRequest()?.headers['x-claude-code-session-id']).toBe(fork);
    // The terminal's own continuation is still there, and still resumes.
    expect(await run('what did I say first?')).toMatchObject({ code: 0 });
    expect(lastRequest()).toMatchObject({ userTexts: ['my secret word is apple', 'my terminal word is pear', 'what did I say first?'] });
  });

  it("never carries Claude's credentials or the API key: the export holds the session only", async () => {
    const laptop = await bench.device('laptop');
    const secret = 'sk-ant-oat01-credential-that-must-stay';
    await writeFile(join(laptop.home.claudeConfigDir, '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: secret } }));
    await writeFile(join(laptop.home.home, '.claude.json'), JSON.stringify({ primaryApiKey: secret }));
    const { data } = await exportedSession(laptop.home, laptop.workspace, 'use a subagent');
    // What a checkpoint carries: this JSON and the bytes of the files it names.
    const files = data.files ?? [];
    expect(files.filter((f) => f.name.startsWith('side/')).length).toBeGreaterThan(0);
    const carried = [JSON.stringify({ ...data, files: files.map(({ name, size }) => ({ name, size })) })];
    for (const file of files) carried.push(await readFile(file.path, 'utf8'));
    expect(files.every((f) => f.path.startsWith(join(laptop.home.claudeConfigDir, 'projects')))).toBe(true);
    for (const leak of [secret, DUMMY_ANTHROPIC_KEY, '.credentials.json', '.claude.json']) expect(carried.join('\n')).not.toContain(leak);
  });
});
