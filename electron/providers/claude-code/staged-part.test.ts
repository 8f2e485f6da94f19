/**
 * A Claude export staged through its line rewriter as the real checkpoint reader unpacks the body
 * (stageClaudeFile, the hook ClaudeCodeSession.stagePart gives) imports to exactly the bytes the
 * import writes from the unstaged files — staged for the target's own workspace (then only renamed
 * into place) or for another one — and a damaged file is refused with the very same error.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResumeData } from '../../../shared/provider.ts';
import { CHECKPOINT_FORMAT, type Checkpoint } from '../../handoff/checkpoint.ts';
import { CheckpointReader } from '../../handoff/checkpoint-reader.ts';
import { transcriptOf } from '../../handoff/checkpoint-transcript.ts';
import { writeCheckpoint } from '../../handoff/checkpoint-writer.ts';
import { sessionFiles } from './paths.ts';
import { CLAUDE_FORMAT, exportClaudeSession, importClaudeSession, stageClaudeFile } from './session-export.ts';
import { futureRealpath } from './staged-part.ts';

const SESSION = 'c0ffee00-1111-2222-3333-444455556666';
let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'baton-claude-staged-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The source's session: its transcript text and side files written where Claude keeps them, exported. */
async function sourceSession(source: string, transcript: string, side: Record<string, string | Buffer>): Promise<ResumeData> {
  const env = { CLAUDE_CONFIG_DIR: join(root, 'cfg-source') };
  await mkdir(source, { recursive: true });
  const files = await sessionFiles(env, source, SESSION);
  await mkdir(files.projectDir, { recursive: true });
  await writeFile(files.transcript, transcript);
  for (const [path, content] of Object.entries(side)) {
    await mkdir(join(files.sideFolder, path, '..'), { recursive: true });
    await writeFile(join(files.sideFolder, path), content);
  }
  const exported = await exportClaudeSession(env, source, SESSION);
  if (!exported.ok) throw new Error(exported.message);
  return { provider: 'claude-code', format: CLAUDE_FORMAT, sessionId: SESSION, ...exported.value };
}

/** `data` carried in a checkpoint body and read back by the real reader, each file staged for `workspace`. */
async function staged(data: ResumeData, workspace: string, piece: number): Promise<{ data: ResumeData; staging: string }> {
  const checkpoint: Checkpoint = {
    format: CHECKPOINT_FORMAT,
    sessionId: 'session-aaaaaaaaaaaa',
    handoffId: 'handoff-aaaaaaaaaaaa',
    createdAt: 1,
    sourceDeviceId: 'device-aaaaaaaaaaaaa',
    sourceDeviceName: 'laptop',
    meta: { title: 't', provider: 'claude-code', prompt: 'p' },
    repos: [],
    providerResume: data,
    packets: [],
    agents: [],
    transcript: transcriptOf([]),
  };
  const chunks: Buffer[] = [];
  await writeCheckpoint(checkpoint, async (chunk) => void chunks.push(Buffer.from(chunk)));
  const body = Buffer.concat(chunks);
  const staging = join(root, `staging-${piece}`);
  const reader = new CheckpointReader(staging, checkpoint.sessionId, checkpoint.handoffId, (_head, resume, file) =>
    stageClaudeFile(resume, file, futureRealpath(workspace)),
  );
  for (let at = 0; at < body.length; at += piece) await reader.push(body.subarray(at, at + piece));
  const read = await reader.end();
  if (!read.ok) throw new Error(read.message);
  return { data: read.value.providerResume!, staging };
}

/**
 * Every file Claude keeps under `configDir`'s projects folder, by path relative to it: its bytes as
 * base64, which compare as one string (a Buffer is compared byte by byte, seconds for these files).
 */
async function projectFiles(configDir: string): Promise<Record<string, string>> {
  const projects = join(configDir, 'projects');
  const entries = await readdir(projects, { recursive: true, withFileTypes: true }).catch(() => []);
  const out: Record<string, string> = {};
  for (const e of entries.filter((entry) => entry.isFile()))
    out[relative(projects, join(e.parentPath, e.name))] = (await readFile(join(e.parentPath, e.name))).toString('base64');
  return out;
}

/** Imports `data` into `workspace` under a fresh config folder: the result and every file written. */
async function imported(data: ResumeData, workspace: string, name: string) {
  const env = { CLAUDE_CONFIG_DIR: join(root, name) };
  const result = await importClaudeSession(env, workspace, SESSION, data);
  return { result, files: await projectFiles(env.CLAUDE_CONFIG_DIR) };
}

const line = (fields: Record<string, unknown>) => JSON.stringify(fields);

describe('a Claude export staged as the checkpoint is read', () => {
  it('imports to the same bytes as the unstaged import, staged for the target workspace or another, in any chunking', async () => {
    const source = join(root, 'ädä', 'wörk space', '"quoted" app');
    const target = join(root, 'target ws ✓');
    const other = join(root, 'other ws');
    await mkdir(target);
    await mkdir(other);
    const long = 'x'.repeat(300_000);
    const transcript = [
      line({ type: 'summary', summary: 'Fixing', leafUuid: 'u3' }),
      line({ type: 'user', uuid: 'u1', parentUuid: null, cwd: source, sessionId: SESSION, message: { role: 'user', content: 'hi 👋' } }),
      '',
      '   ',
      line({
        type: 'assistant',
        uuid: 'u2',
        cwd: `${source}/pkg/sub`,
        message: { role: 'assistant', content: [{ type: 'text', text: long }] },
      }),
      // The key also inside a string and a nested object: not plain, so written anew.
      line({ type: 'user', uuid: 'u3', cwd: source, note: '"cwd":"elsewhere"', tool: { cwd: source } }),
      // The value escaped otherwise than JSON.stringify writes it.
      `{"type":"user","uuid":"u4","cwd":"${source.replace(/"/g, '\\"').replace(/\//g, '\\/')}"}`,
      // A cwd outside the source workspace, and one under the other workspace.
      line({ type: 'user', uuid: 'u5', cwd: '/tmp/elsewhere' }),
      line({ type: 'user', uuid: 'u6', cwd: `${other}/deeper`, extra: 'é\u2028' }),
      line({ type: 'user', uuid: 'u7', cwd: 42 }),
      line({ type: 'user', uuid: 'u8' }),
    ].join('\n'); // the last line has no newline
    const data = await sourceSession(source, transcript, {
      'subagents/agent-1.jsonl': `${line({ uuid: 'a1', cwd: `${source}/pkg` })}\n\n${line({ uuid: 'a2', cwd: source })}`,
      'tool-results/r.bin': Buffer.from([0, 10, 255, 10, 1]),
    });

    const today = await imported(data, target, 'cfg-today');
    expect(today.result.ok).toBe(true);
    expect(Object.keys(today.files).sort()).toEqual([
      expect.stringMatching(new RegExp(`/${SESSION}\\.jsonl$`)),
      expect.stringMatching(/subagents\/agent-1\.jsonl$/),
      expect.stringMatching(/tool-results\/r\.bin$/),
    ]);
    expect(Buffer.from(today.files[Object.keys(today.files).find((f) => f.endsWith(`${SESSION}.jsonl`))!]!, 'base64').toString()).toContain(
      `"cwd":${JSON.stringify(target)}`,
    );

    for (const piece of [61, 4093, 1 << 20]) {
      const here = await staged(data, target, piece);
      const fast = await imported(here.data, target, `cfg-fast-${piece}`);
      expect(fast.result).toEqual(today.result);
      expect(fast.files).toEqual(today.files);
      // Renamed into place: the staged transcript is no longer in staging.
      expect(existsSync(here.data.files![0]!.path)).toBe(false);

      const elsewhere = await staged(data, other, piece);
      const moved = await imported(elsewhere.data, target, `cfg-moved-${piece}`);
      expect(moved.result).toEqual(today.result);
      expect(moved.files).toEqual(today.files);
    }

    // Staged for a workspace the pin has yet to clone: resolved as it will be once made.
    const later = join(root, 'clones', 'app-2');
    const ahead = await staged(data, later, 4093);
    await mkdir(later, { recursive: true });
    const laterToday = await imported(data, later, 'cfg-later-today');
    const laterFast = await imported(ahead.data, later, 'cfg-later-fast');
    expect(laterFast).toEqual(laterToday);
    expect(existsSync(ahead.data.files![0]!.path)).toBe(false);
  });

  it('refuses a damaged transcript, an unresumable one and a damaged side file with the same error as the unstaged import', async () => {
    const source = join(root, 'src', 'app');
    const target = join(root, 'target');
    await mkdir(target);
    const good = line({ type: 'user', uuid: 'u1', cwd: source });
    const cases: [string, Record<string, string>][] = [
      [`${good}\n${good}\n{"type":"user",\n${good}\n`, {}],
      [`${good}\n[1,2]\n`, {}],
      [`${line({ type: 'user', cwd: source })}\n`, {}],
      [`${line({ type: 'summary', leafUuid: 'missing' })}\n${good}\n`, {}],
      [`${good}\n`, { 'subagents/agent-1.jsonl': `${good}\nnot json\n` }],
    ];
    for (const [i, [transcript, side]] of cases.entries()) {
      const data = await sourceSession(`${source}/${i}`, transcript.replaceAll(source, `${source}/${i}`), side);
      const today = await imported(data, target, `cfg-today-${i}`);
      expect(today.result.ok).toBe(false);
      const fast = await imported((await staged(data, target, 4093)).data, target, `cfg-fast-${i}`);
      expect(fast.result).toEqual(today.result);
      // Nothing was written in place.
      expect(fast.files).toEqual({});
    }
  });
});
