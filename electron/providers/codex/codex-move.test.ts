/**
 * Moving a Codex session between two "devices" (each its own HOME and CODEX_HOME, each its own clone
 * at a different path) with the real `codex`: export on one, import on the other, and the next turn
 * continues the same thread with its history — plain and zstd-compressed rollouts, every id form.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResumeData } from '../../../shared/provider.ts';
import { DUMMY_CODEX_KEY, type AgentHome } from '../../../dev-env/agent-clis/agent-homes.ts';
import { SAMPLE_CONTINUATION as continuation, useCliBench } from '../../../dev-env/agent-clis/cli-bench.ts';
import { FIXTURES, fixtureBytes, fixtureText } from '../../../dev-env/fixtures/fixtures.ts';
import { resumeProvider } from '../resume.ts';
import { CodexSession } from './codex-session.ts';
import { waitForIdle } from '../wait-idle.ts';
import { findRollout } from './rollout.ts';

const MOVE_NOTE = 'Baton: this session just moved from the device "laptop" to "desktop"; you now run on desktop.';

const bench = useCliBench();

const codex = (home: AgentHome, deviceName?: string): CodexSession =>
  bench.track(new CodexSession({ env: home.env, ...(deviceName ? { deviceName } : {}) }));
const lastRequest = () => bench.lastRequest('openai-responses');
const turnMetadata = (): Record<string, unknown> =>
  JSON.parse(lastRequest()?.headers['x-codex-turn-metadata'] ?? '{}') as Record<string, unknown>;
const recorded = FIXTURES.codex['write-and-resume'];

async function exportOf(session: CodexSession): Promise<ResumeData> {
  const exported = await session.exportResumeData();
  if (!exported.ok) throw new Error(exported.message);
  return JSON.parse(JSON.stringify(exported.value)) as ResumeData;
}

/** Imports `data` on `home` in `workspace` (the checkpoint-import path), ready for its next turn. */
async function imported(home: AgentHome, workspace: string, data: ResumeData): Promise<CodexSession> {
  const target = codex(home);
  expect(await resumeProvider(target, { workspace, resumeData: data, continuation })).toEqual({
    ok: true,
    value: { path: 'checkpoint-import' },
  });
  return target;
}

describe('Codex session moved between devices (the real codex)', () => {
  it("reads Baton's note with the first input after the move: the model is sent it, the transcript keeps the person's words", async () => {
    const laptop = await bench.device('laptop');
    const desktop = await bench.device('desktop', 'elsewhere/deeper');
    const source = codex(laptop.home);
    await bench.turn(source, 'say hello', laptop.workspace);
    const target = await imported(desktop.home, desktop.workspace, await exportOf(source));
    expect((await target.send('say hello', MOVE_NOTE)).ok).toBe(true);
    expect(await waitForIdle(target, 30_000)).toBe(true);
    expect(lastRequest()?.lastUserText).toBe(`${MOVE_NOTE}\n\nsay hello`);
    expect(
      bench
        .texts(target)
        .filter((t) => t.startsWith('user:'))
        .at(-1),
    ).toBe('user: say hello');
  });

  it('continues the same thread on the other device, in a workspace at another path, with its history', async () => {
    const laptop = await bench.device('laptop');
    const desktop = await bench.device('desktop', 'elsewhere/deeper');
    const source = codex(laptop.home);
    await bench.turn(source, 'my secret word is apple', laptop.workspace);
    const data = await exportOf(source);
    expect(data).toMatchObject({ provider: 'codex', format: 'codex/rollout@2', sessionId: source.codexThreadId });
    expect(data.files).toMatchObject([{ name: 'rollout', path: expect.stringContaining(laptop.home.codexHome) }]);

    const target = await imported(desktop.home, desktop.workspace, data);
    await bench.turn(target, 'what did I say first?');
    expect(target.codexThreadId).toBe(source.codexThreadId);
    expect(bench.texts(target).at(-1)).toBe('assistant: I remember: my secret word is apple');
    expect(turnMetadata()).toMatchObject({ thread_id: source.codexThreadId, history_initialization: 'cold_resume' });
    await bench.turn(target, 'write file moved.txt with written on the desktop');
    expect(readFileSync(join(desktop.workspace, 'moved.txt'), 'utf8')).toBe('written on the desktop\n');
    expect(existsSync(join(laptop.workspace, 'moved.txt'))).toBe(false);
  });

  it('carries a zstd-compressed rollout byte for byte, and the target Codex resumes it with its history', async () => {
    const desktop = await bench.device('desktop');
    const relativePath = `${recorded.relativePath}.zst`;
    const zst = fixtureBytes(`${recorded.file}.zst`);
    const payload = { relativePath, sourceCwd: FIXTURES.workspace, encoding: 'zstd-base64', content: zst.toString('base64') };
    const target = await imported(desktop.home, desktop.workspace, {
      provider: 'codex',
      format: 'codex/rollout@1',
      sessionId: recorded.threadId,
      payload,
    });
    expect(readFileSync(join(desktop.home.codexHome, relativePath))).toEqual(zst);
    await bench.turn(target, 'what did I say first?');
    expect(target.codexThreadId).toBe(recorded.threadId);
    expect(bench.texts(target).at(-1)).toBe('assistant: I remember: write file hello.txt with Hello from Codex');
    expect(await findRollout(desktop.home.codexHome, recorded.threadId)).toBe(recorded.relativePath); // Codex made it plain again
    expect((await exportOf(target)).payload).toMatchObject({ relativePath: recorded.relativePath, encoding: 'utf8' });
  });

  it('exports and moves a thread whose id has an all-digit first group', async () => {
    const [laptop, desktop] = [await bench.device('laptop'), await bench.device('desktop')];
    const id = '01987654-3210-7abc-8def-0123456789ab';
    const relativePath = recorded.relativePath.replace(recorded.threadId, id);
    const content = fixtureText(recorded.file).replaceAll(recorded.threadId, id);
    const payload = { relativePath, sourceCwd: FIXTURES.workspace, encoding: 'utf8', content };
    const source = await imported(laptop.home, laptop.workspace, { provider: 'codex', format: 'codex/rollout@1', sessionId: id, payload });
    await bench.turn(source, 'say hello');
    expect(source.codexThreadId).toBe(id);

    const target = await imported(desktop.home, desktop.workspace, await exportOf(source));
    await bench.turn(target, 'what did I say first?');
    expect(target.codexThreadId).toBe(id);
    expect(bench.texts(target).at(-1)).toBe('assistant: I remember: write file hello.txt with Hello from Codex');
  });

  it('moved away and back, replaces its earlier rollout here and keeps the thread id', async () => {
    const [desktop, laptop] = [await bench.device('desktop'), await bench.device('laptop')];
    const source = codex(desktop.home);
    await bench.turn(source, 'my secret word is apple', desktop.workspace);
    const away = await imported(laptop.home, laptop.workspace, await exportOf(source));
    await bench.turn(away, 'say hello');
    const home = await imported(desktop.home, desktop.workspace, await exportOf(away));
    await bench.turn(home, 'what did I say first?');
    expect(home.codexThreadId).toBe(source.codexThreadId);
    expect(bench.texts(home).at(-1)).toBe('assistant: I remember: my secret word is apple');
  });

  it('keeps the thread continued here in the terminal while it was away, and imports the moved one as a fork', async () => {
    const [desktop, laptop] = [await bench.device('desktop'), await bench.device('laptop')];
    const source = codex(desktop.home);
    await bench.turn(source, 'my secret word is apple', desktop.workspace);
    const id = source.codexThreadId!;
    const away = await imported(laptop.home, laptop.workspace, await exportOf(source));
    await bench.turn(away, 'say hello');
    // Meanwhile the user goes on with the thread on the desktop, in a terminal.
    const run = (prompt: string) =>
      bench.lab.run('codex', ['exec', '--json', '--skip-git-repo-check', 'resume', id, '-'], {
        cwd: desktop.workspace,
        env: desktop.home.env,
        stdin: prompt,
      });
    expect(await run('my terminal word is pear')).toMatchObject({ code: 0 });
    const rollout = join(desktop.home.codexHome, (await findRollout(desktop.home.codexHome, id))!);
    const continued = readFileSync(rollout);

    // Then the thread moves back from the laptop.
    const home = codex(desktop.home, 'desktop');
    const resumed = await resumeProvider(home, { workspace: desktop.workspace, resumeData: await exportOf(away), continuation });
    expect(resumed).toMatchObject({
      ok: true,
      value: { path: 'checkpoint-import', reason: expect.stringContaining('imported as a fork') },
    });
    const fork = home.codexThreadId!;
    expect(fork).not.toBe(id);
    expect(bench.texts(home).at(-1)).toContain(`imported as a fork, thread ${fork}.`);
    // Read on every device, the note names the one that forked.
    expect(bench.texts(home).at(-1)).toContain(`system: Desktop already had Codex thread ${id},`);
    expect(bench.texts(home).at(-1)).toContain('in a terminal on desktop');
    expect(readFileSync(rollout)).toEqual(continued);
    await bench.turn(home, 'what did I say first?');
    expect(home.codexThreadId).toBe(fork);
    expect(bench.texts(home).at(-1)).toBe('assistant: I remember: my secret word is apple');
    expect(turnMetadata()).toMatchObject({ thread_id: fork });
    expect(lastRequest()?.userTexts).toContain('say hello');
    expect(lastRequest()?.userTexts).not.toContain('my terminal word is pear');
    // The terminal's own continuation is still there, and still resumes.
    expect(await run('what did I say first?')).toMatchObject({ code: 0 });
    expect(turnMetadata()).toMatchObject({ thread_id: id });
    expect(lastRequest()?.userTexts).toContain('my terminal word is pear');
  });

  it("never carries Codex's credentials or the API key: the export holds the rollout only", async () => {
    const laptop = await bench.device('laptop');
    const secret = 'sk-proj-credential-that-must-stay';
    await writeFile(join(laptop.home.codexHome, 'auth.json'), JSON.stringify({ OPENAI_API_KEY: secret, tokens: { access_token: secret } }));
    const source = codex(laptop.home);
    await bench.turn(source, 'say hello', laptop.workspace);
    // What a checkpoint carries: this JSON and the bytes of the files it names.
    const data = await exportOf(source);
    const files = data.files ?? [];
    const carried = [
      JSON.stringify({ ...data, files: files.map(({ name, size }) => ({ name, size })) }),
      ...files.map((f) => readFileSync(f.path, 'utf8')),
    ];
    expect(files.map((f) => f.path.startsWith(join(laptop.home.codexHome, 'sessions')))).toEqual([true]);
    for (const leak of [secret, DUMMY_CODEX_KEY, 'auth.json', 'config.toml']) expect(carried.join('\n')).not.toContain(leak);
  });
});
