import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionFiles } from './paths.ts';
import { exportClaudeSession, importClaudeSession } from './session-export.ts';

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'baton-claude-export-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function folders(): Promise<{ src: string; dst: string; srcEnv: NodeJS.ProcessEnv; dstEnv: NodeJS.ProcessEnv }> {
  const [src, dst] = [join(root, 'src ws'), join(root, 'dst')];
  await mkdir(src);
  await mkdir(dst);
  return { src, dst, srcEnv: { CLAUDE_CONFIG_DIR: join(root, 'cfg-a') }, dstEnv: { CLAUDE_CONFIG_DIR: join(root, 'cfg-b') } };
}

describe('Claude session export and import', () => {
  it('carries the transcript and its side folder, rewriting cwd in jsonl files and keeping other bytes', async () => {
    const { src, dst, srcEnv, dstEnv } = await folders();
    const files = await sessionFiles(srcEnv, src, 's1');
    await mkdir(join(files.sideFolder, 'tool-results'), { recursive: true });
    await mkdir(join(files.sideFolder, 'subagents'), { recursive: true });
    await writeFile(files.transcript, `${JSON.stringify({ uuid: 'u1', cwd: src, type: 'user', message: { content: 'hi' } })}\n`);
    await writeFile(join(files.sideFolder, 'subagents', 'agent-1.jsonl'), `${JSON.stringify({ uuid: 'x', cwd: `${src}/pkg` })}\n`);
    const binary = Buffer.from([0, 255, 1, 254]);
    await writeFile(join(files.sideFolder, 'tool-results', 'r.bin'), binary);

    const exported = await exportClaudeSession(srcEnv, src, 's1');
    if (!exported.ok) throw new Error(exported.message);
    expect(exported.value.sideFiles.map((f) => [f.path, f.encoding])).toEqual([
      ['subagents/agent-1.jsonl', 'utf8'],
      ['tool-results/r.bin', 'base64'],
    ]);

    const imported = await importClaudeSession(dstEnv, dst, 's1', JSON.parse(JSON.stringify(exported.value)));
    expect(imported.ok).toBe(true);
    const target = await sessionFiles(dstEnv, dst, 's1');
    expect(JSON.parse(await readFile(target.transcript, 'utf8'))).toMatchObject({ cwd: dst });
    expect(JSON.parse(await readFile(join(target.sideFolder, 'subagents', 'agent-1.jsonl'), 'utf8'))).toMatchObject({ cwd: `${dst}/pkg` });
    expect(await readFile(join(target.sideFolder, 'tool-results', 'r.bin'))).toEqual(binary);
  });

  it('says so when there is no transcript to export', async () => {
    const { src, srcEnv } = await folders();
    expect(await exportClaudeSession(srcEnv, src, 'missing')).toMatchObject({ ok: false, code: 'export_failed' });
  });

  it('refuses a target workspace that does not exist', async () => {
    const { dstEnv } = await folders();
    const payload = { sourceCwd: '/s', transcript: '{"uuid":"u"}\n', sideFiles: [] };
    expect(await importClaudeSession(dstEnv, join(root, 'nowhere'), 's1', payload)).toMatchObject({
      ok: false,
      code: 'import_check_failed',
      message: expect.stringContaining('cannot be opened'),
    });
  });
});
