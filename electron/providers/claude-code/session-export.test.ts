import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
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
    // The files are named, not read: the checkpoint streams them as binary parts.
    expect(exported.value.payload).toEqual({ sourceCwd: src });
    expect(exported.value.files.map((f) => [f.name, f.path.startsWith(root), f.size])).toEqual([
      ['transcript', true, (await readFile(files.transcript)).length],
      ['side/subagents/agent-1.jsonl', true, (await readFile(join(files.sideFolder, 'subagents', 'agent-1.jsonl'))).length],
      ['side/tool-results/r.bin', true, 4],
    ]);

    const done: number[] = [];
    const imported = await importClaudeSession(dstEnv, dst, 's1', exported.value, (bytes) => done.push(bytes));
    expect(imported.ok && imported.value.agents.map((a) => a.id)).toEqual(['main']);
    expect(done.at(-1)).toBe(exported.value.files.reduce((sum, f) => sum + f.size, 0));
    const target = await sessionFiles(dstEnv, dst, 's1');
    expect(JSON.parse(await readFile(target.transcript, 'utf8'))).toMatchObject({ cwd: dst });
    expect(JSON.parse(await readFile(join(target.sideFolder, 'subagents', 'agent-1.jsonl'), 'utf8'))).toMatchObject({ cwd: `${dst}/pkg` });
    expect(await readFile(join(target.sideFolder, 'tool-results', 'r.bin'))).toEqual(binary);
  });

  it('exports a session kept under another project folder (Claude resumes those too)', async () => {
    const { src, srcEnv } = await folders();
    const elsewhere = join(root, 'cfg-a', 'projects', 'whatever-name');
    await mkdir(elsewhere, { recursive: true });
    await writeFile(join(elsewhere, 's1.jsonl'), `${JSON.stringify({ uuid: 'u1', cwd: '/old', type: 'user' })}\n`);
    expect(await exportClaudeSession(srcEnv, src, 's1')).toMatchObject({
      ok: true,
      value: { payload: { sourceCwd: src }, files: [{ name: 'transcript', path: join(elsewhere, 's1.jsonl') }] },
    });
  });

  it('imports under the target slug and removes older copies of the session in other project folders', async () => {
    const { dst, dstEnv } = await folders();
    const stale = join(root, 'cfg-b', 'projects', 'old-place');
    await mkdir(join(stale, 's1'), { recursive: true });
    // An earlier stay of the session in another workspace: its first line, with that workspace's cwd.
    await writeFile(join(stale, 's1.jsonl'), `${JSON.stringify({ uuid: 'u', cwd: '/old-place' })}\n`);
    await writeFile(join(stale, 'other.jsonl'), 'another session\n');
    // Data of the earlier format (everything inline) is still imported.
    const payload = { sourceCwd: '/s', transcript: `${JSON.stringify({ uuid: 'u', cwd: '/s' })}\n`, sideFiles: [] };
    expect((await importClaudeSession(dstEnv, dst, 's1', { payload })).ok).toBe(true);
    expect(await readdir(stale)).toEqual(['other.jsonl']);
    expect(await readFile((await sessionFiles(dstEnv, dst, 's1')).transcript, 'utf8')).toBe(`${JSON.stringify({ uuid: 'u', cwd: dst })}\n`);
  });

  it('returns a write failure (a name too long, side files that collide) as a failed import, changing nothing', async () => {
    const { dst, dstEnv } = await folders();
    const files = await sessionFiles(dstEnv, dst, 's1');
    await mkdir(join(files.sideFolder, 'subagents'), { recursive: true });
    await writeFile(files.transcript, 'the earlier state\n');
    const transcript = `${JSON.stringify({ uuid: 'u', cwd: '/s' })}\n`;
    const sideFiles = [
      { path: 'tool-results', encoding: 'base64' as const, content: '' },
      { path: 'tool-results/r.txt', encoding: 'base64' as const, content: '' },
    ];
    const collided = await importClaudeSession(dstEnv, dst, 's1', { payload: { sourceCwd: '/s', transcript, sideFiles } });
    expect(collided).toMatchObject({
      ok: false,
      code: 'import_check_failed',
      message: expect.stringContaining('could not be written here'),
    });
    expect(await readFile(files.transcript, 'utf8')).toBe('the earlier state\n');
    expect((await readdir(files.projectDir)).sort()).toEqual(['s1', 's1.jsonl']);
    expect(await readdir(files.sideFolder)).toEqual(['subagents']);

    const tooLong = { CLAUDE_CONFIG_DIR: join(root, `${'x'.repeat(250)}/`.repeat(17)) };
    expect(await importClaudeSession(tooLong, dst, 's1', { payload: { sourceCwd: '/s', transcript, sideFiles: [] } })).toMatchObject({
      ok: false,
      code: 'import_check_failed',
      message: expect.stringContaining('ENAMETOOLONG'),
    });
  });

  it('returns a full disk as a failed import and leaves no partial copy (a 64 KiB tmpfs; mounting one needs root)', async () => {
    const { dst } = await folders();
    const small = join(root, 'small-disk');
    await mkdir(small);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', small]);
    try {
      const env = { CLAUDE_CONFIG_DIR: small };
      const transcript = `${JSON.stringify({ uuid: 'u', cwd: '/s', text: 'x'.repeat(200_000) })}\n`;
      const result = await importClaudeSession(env, dst, 's1', { payload: { sourceCwd: '/s', transcript, sideFiles: [] } });
      if (asRoot) {
        expect(result).toMatchObject({ ok: false, code: 'import_check_failed', message: expect.stringContaining('ENOSPC') });
        expect(await readdir((await sessionFiles(env, dst, 's1')).projectDir)).toEqual([]);
      } else {
        expect(result.ok).toBe(true); // no small disk without root: the same write lands
      }
    } finally {
      if (asRoot) execFileSync('umount', ['-l', small]);
    }
  });

  it('says so when there is no transcript to export', async () => {
    const { src, srcEnv } = await folders();
    expect(await exportClaudeSession(srcEnv, src, 'missing')).toMatchObject({ ok: false, code: 'export_failed' });
  });

  it('refuses a target workspace that does not exist', async () => {
    const { dstEnv } = await folders();
    const payload = { sourceCwd: '/s', transcript: '{"uuid":"u"}\n', sideFiles: [] };
    expect(await importClaudeSession(dstEnv, join(root, 'nowhere'), 's1', { payload })).toMatchObject({
      ok: false,
      code: 'import_check_failed',
      message: expect.stringContaining('cannot be opened'),
    });
  });

  it('refuses a damaged transcript file or a file it does not know before writing anything, and leaves what was there', async () => {
    const { dst, dstEnv } = await folders();
    const files = await sessionFiles(dstEnv, dst, 's1');
    await mkdir(files.projectDir, { recursive: true });
    await writeFile(files.transcript, 'the earlier state\n');
    const damaged = join(root, 'damaged.jsonl');
    await writeFile(damaged, `${JSON.stringify({ uuid: 'u', cwd: '/s' })}\n{oops\n`);
    const transcript = { name: 'transcript', path: damaged, size: 0 };
    expect(await importClaudeSession(dstEnv, dst, 's1', { payload: { sourceCwd: '/s' }, files: [transcript] })).toMatchObject({
      ok: false,
      code: 'import_check_failed',
      message: 'The Claude transcript is damaged: line 2 is not JSON.',
    });
    const stray = { payload: { sourceCwd: '/s' }, files: [transcript, { name: '../escape', path: damaged, size: 0 }] };
    expect(await importClaudeSession(dstEnv, dst, 's1', stray)).toMatchObject({
      ok: false,
      message: expect.stringContaining('does not know'),
    });
    expect(await readFile(files.transcript, 'utf8')).toBe('the earlier state\n');
    expect(await readdir(files.projectDir)).toEqual(['s1.jsonl']);
  });

  it('keeps a copy that went on without the moved session untouched, and imports the moved one as a fork under a new id', async () => {
    const { src, dst, srcEnv, dstEnv } = await folders();
    const line = (uuid: string, cwd: string, sessionId = 's1') => JSON.stringify({ type: 'user', uuid, sessionId, cwd });
    // The session as it left this device, then continued here in a terminal while it was away.
    const here = await sessionFiles(dstEnv, dst, 's1');
    await mkdir(join(here.sideFolder, 'subagents'), { recursive: true });
    const continued = [line('u1', dst), line('u2', dst), line('here-1', dst)].join('\n') + '\n';
    await writeFile(here.transcript, continued);
    await writeFile(join(here.sideFolder, 'subagents', 'agent-1.jsonl'), 'kept\n');
    // An earlier copy in another project folder: kept too while the session is forked (it is this session's, not the fork's).
    const other = join(root, 'cfg-b', 'projects', 'other-place');
    await mkdir(other, { recursive: true });
    await writeFile(join(other, 's1.jsonl'), `${line('u1', '/other-place')}\n`);
    // What came back from the other device: the first two lines, then its own.
    const source = await sessionFiles(srcEnv, src, 's1');
    await mkdir(join(source.sideFolder, 'subagents'), { recursive: true });
    await writeFile(source.transcript, [line('u1', src), line('u2', src), line('away-1', src)].join('\n') + '\n');
    await writeFile(join(source.sideFolder, 'subagents', 'agent-9.jsonl'), `${line('a9', src)}\n`);
    const exported = await exportClaudeSession(srcEnv, src, 's1');
    if (!exported.ok) throw new Error(exported.message);

    const imported = await importClaudeSession(dstEnv, dst, 's1', exported.value);
    if (!imported.ok) throw new Error(imported.message);
    const fork = imported.value.sessionId;
    expect(fork).toMatch(/^[0-9a-f-]{36}$/);
    expect(imported.value.forkNote).toContain(`imported as a fork, session ${fork}`);
    expect(await readFile(here.transcript, 'utf8')).toBe(continued);
    expect(await readFile(join(here.sideFolder, 'subagents', 'agent-1.jsonl'), 'utf8')).toBe('kept\n');
    expect(await readdir(other)).toEqual(['s1.jsonl']);
    // The fork: every line as it came but for its cwd and its sessionId, as claude --fork-session writes it.
    const forked = await sessionFiles(dstEnv, dst, fork);
    expect(await readFile(forked.transcript, 'utf8')).toBe(
      [line('u1', dst, fork), line('u2', dst, fork), line('away-1', dst, fork)].join('\n') + '\n',
    );
    expect(await readFile(join(forked.sideFolder, 'subagents', 'agent-9.jsonl'), 'utf8')).toBe(`${line('a9', dst, fork)}\n`);

    // Brought back again once the copy here is an earlier state of it: replaced in place, no fork.
    await writeFile(source.transcript, continued.replaceAll(dst, src) + `${line('away-2', src)}\n`);
    const again = await exportClaudeSession(srcEnv, src, 's1');
    if (!again.ok) throw new Error(again.message);
    expect(await importClaudeSession(dstEnv, dst, 's1', again.value)).toMatchObject({
      ok: true,
      value: { sessionId: 's1', forkNote: null },
    });
    expect(await readFile(here.transcript, 'utf8')).toBe(`${continued}${line('away-2', dst)}\n`);
    expect(await readdir(other)).toEqual([]);
  });

  it('refuses a transcript with a line over 16 MiB as damaged, without gathering the line', async () => {
    const { dst, dstEnv } = await folders();
    const long = join(root, 'long.jsonl');
    await writeFile(long, `${JSON.stringify({ uuid: 'u', cwd: '/s', text: 'x'.repeat(17 * 1024 * 1024) })}\n`);
    const files = [{ name: 'transcript', path: long, size: 0 }];
    expect(await importClaudeSession(dstEnv, dst, 's1', { payload: { sourceCwd: '/s' }, files })).toMatchObject({
      ok: false,
      code: 'import_check_failed',
      message: 'The Claude transcript is damaged: line 1 is longer than 16777216 bytes.',
    });
  });
});
