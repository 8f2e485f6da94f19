import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, fixtureBytes, fixtureText } from '../../../dev-env/fixtures/fixtures.ts';
import { fzstdDecoder } from '../../../dev-env/fzstd-decoder.ts';
import { writeRawZstd, zstdBomb } from '../../../dev-env/zstd-frames.ts';
import { exportRollout, findRollout, importRollout, isRolloutPath, readRollout } from './rollout.ts';

const id = '0199a213-81c0-7800-8aa1-bbab2a035a53';
const rel = `sessions/2025/08/11/rollout-2025-08-11T01-02-03-${id}.jsonl`;
const rollout = [
  {
    timestamp: '2025-08-11T01:02:03.000Z',
    type: 'session_meta',
    payload: { id, cwd: '/src/app', model_provider: 'openai', git: { branch: 'main' } },
  },
  { timestamp: '2025-08-11T01:02:03.100Z', type: 'turn_context', payload: { cwd: '/src/app/pkg', model: 'm' } },
  {
    timestamp: '2025-08-11T01:02:04.000Z',
    type: 'response_item',
    payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }] },
  },
  {
    timestamp: '2025-08-11T01:02:05.000Z',
    type: 'response_item',
    payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] },
  },
  {
    timestamp: '2025-08-11T01:02:06.000Z',
    type: 'response_item',
    payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] },
  },
  { timestamp: '2025-08-11T01:02:07.000Z', type: 'event_msg', payload: { type: 'agent_message', message: 'hi', cwd: '/untouched' } },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'baton-codex-home-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const recorded = FIXTURES.codex['write-and-resume'];

describe('Codex rollout', () => {
  it('reads messages into the transcript, skipping injected context', () => {
    expect(readRollout(rollout).map((e) => [e.role, e.text, e.at])).toEqual([
      ['user', 'hello', Date.parse('2025-08-11T01:02:05.000Z')],
      ['assistant', 'hi', Date.parse('2025-08-11T01:02:06.000Z')],
    ]);
  });

  it('reads a rollout the real Codex wrote, apply_patch call included', () => {
    expect(readRollout(fixtureText(recorded.file)).map((e) => [e.role, e.text.split('\n')[0]])).toEqual([
      ['user', 'write file hello.txt with Hello from Codex'],
      ['tool', 'apply_patch *** Begin Patch'],
      ['assistant', 'Wrote hello.txt.'],
      ['user', 'what did I say first?'],
      ['assistant', 'I remember: write file hello.txt with Hello from Codex'],
    ]);
  });

  it('finds rollouts for every thread id form, all-digit first groups included', async () => {
    for (const thread of [
      '01987654-3210-7abc-8def-0123456789ab',
      '01a22cd2-b331-7652-baf7-c8de22fda03d',
      '12345678-1234-1234-1234-123456789012',
    ]) {
      const path = `sessions/2025/08/01/rollout-2025-08-01T10-11-12-${thread}.jsonl`;
      expect(isRolloutPath(path, thread)).toBe(true);
      await mkdir(join(home, 'sessions/2025/08/01'), { recursive: true });
      await writeFile(join(home, path), '{}\n');
      expect(await findRollout(home, thread)).toBe(path);
    }
    expect(isRolloutPath(`sessions/2025/08/01/rollout-2025-08-01T10-11-12-other-${id}.jsonl`, id)).toBe(false);
    expect(isRolloutPath(`sessions/2025/08/rollout-2025-08-01T10-11-12-${id}.jsonl`, id)).toBe(false);
  });

  it('exports the rollout by name (unread) and imports that file byte for byte under another home (Codex is told the new cwd itself)', async () => {
    await mkdir(join(home, 'sessions/2025/08/11'), { recursive: true });
    await writeFile(join(home, rel), rollout);
    const exported = await exportRollout(home, id, '/src/app');
    expect(exported).toEqual({
      ok: true,
      value: {
        payload: { relativePath: rel, sourceCwd: '/src/app', encoding: 'utf8' },
        files: [{ name: 'rollout', path: join(home, rel), size: Buffer.byteLength(rollout) }],
      },
    });
    const target = await mkdtemp(join(tmpdir(), 'baton-codex-target-'));
    try {
      expect(await importRollout(target, id, exported.ok ? exported.value : { payload: null })).toEqual({
        ok: true,
        value: { threadId: id, forkNote: null },
      });
      expect(await readFile(join(target, rel), 'utf8')).toBe(rollout);
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });

  it('still imports the earlier format, the rollout inline, byte for byte', async () => {
    const result = await importRollout(home, id, {
      payload: { relativePath: rel, sourceCwd: '/src/app', encoding: 'utf8', content: rollout },
    });
    expect(result).toEqual({ ok: true, value: { threadId: id, forkNote: null } });
    expect(await readFile(join(home, rel), 'utf8')).toBe(rollout);
  });

  it('carries a zstd rollout byte for byte, on a Node without zstd too', async () => {
    const zst = fixtureBytes(`${recorded.file}.zst`);
    const relativePath = `${recorded.relativePath}.zst`;
    const source = join(home, 'carried.zst');
    await writeFile(source, zst);
    const data = {
      payload: { relativePath, sourceCwd: FIXTURES.workspace, encoding: 'zstd' },
      files: [{ name: 'rollout', path: source, size: zst.length }],
    };
    expect((await importRollout(home, recorded.threadId, data)).ok).toBe(true);
    expect(await readFile(join(home, relativePath))).toEqual(zst);
    expect(await exportRollout(home, recorded.threadId, '/x')).toMatchObject({
      ok: true,
      value: { payload: { relativePath, encoding: 'zstd' }, files: [{ name: 'rollout', size: zst.length }] },
    });
    const inline = { relativePath, sourceCwd: FIXTURES.workspace, encoding: 'zstd-base64', content: zst.toString('base64') };
    expect((await importRollout(home, recorded.threadId, { payload: inline })).ok).toBe(true);
  });

  it('replaces an older copy of the same thread kept under another name: an earlier state of it', async () => {
    const older = `sessions/2025/08/10/rollout-2025-08-10T00-00-00-${id}.jsonl`;
    await mkdir(join(home, 'sessions/2025/08/10'), { recursive: true });
    await writeFile(join(home, older), `${rollout.split('\n').slice(0, 3).join('\n')}\n`);
    expect(
      (await importRollout(home, id, { payload: { relativePath: rel, sourceCwd: '/s', encoding: 'utf8', content: rollout } })).ok,
    ).toBe(true);
    expect(await readdir(join(home, 'sessions/2025/08/10'))).toEqual([]);
    expect(await findRollout(home, id)).toBe(rel);
  });

  it('refuses data marked zstd that is not, a damaged rollout, and another session, writing nothing', async () => {
    const notZstd = {
      relativePath: `${rel}.zst`,
      sourceCwd: '/s',
      encoding: 'zstd-base64',
      content: Buffer.from('plain').toString('base64'),
    };
    expect(await importRollout(home, id, { payload: notZstd })).toMatchObject({
      ok: false,
      code: 'import_check_failed',
      message: expect.stringContaining('not zstd'),
    });
    const damaged = { relativePath: rel, sourceCwd: '/s', encoding: 'utf8', content: `${rollout}\n{broken` };
    expect(await importRollout(home, id, { payload: damaged })).toMatchObject({
      ok: false,
      message: expect.stringContaining('line 7 is not JSON'),
    });
    const damagedFile = join(home, 'damaged.jsonl');
    await writeFile(damagedFile, `${rollout}\n{broken`);
    const asFile = {
      payload: { relativePath: rel, sourceCwd: '/s', encoding: 'utf8' },
      files: [{ name: 'rollout', path: damagedFile, size: 1 }],
    };
    expect(await importRollout(home, id, asFile)).toMatchObject({ ok: false, message: expect.stringContaining('line 7 is not JSON') });
    const other = { relativePath: rel.replace(id, 'other-id'), sourceCwd: '/s', encoding: 'utf8', content: rollout };
    expect(await importRollout(home, 'other-id', { payload: other })).toMatchObject({
      ok: false,
      message: expect.stringContaining('session_meta'),
    });
    await expect(readdir(join(home, 'sessions'))).rejects.toThrow();
  });

  it('returns a write failure as a failed import and leaves no partial file', async () => {
    await writeFile(join(home, 'sessions'), 'a file where the sessions folder goes');
    const result = await importRollout(home, id, { payload: { relativePath: rel, sourceCwd: '/s', encoding: 'utf8', content: rollout } });
    expect(result).toMatchObject({
      ok: false,
      code: 'import_check_failed',
      message: expect.stringMatching(/could not be written here: .*ENOTDIR/),
    });
  });

  it('keeps a copy that went on without the moved thread, and imports the moved one as a fork: a new id in its session_meta and name', async () => {
    const lines = rollout.split('\n');
    const here = `${[...lines.slice(0, 4), JSON.stringify({ type: 'event_msg', payload: { type: 'resumed here' } })].join('\n')}\n`;
    await mkdir(join(home, 'sessions/2025/08/11'), { recursive: true });
    await writeFile(join(home, rel), here);
    const result = await importRollout(home, id, { payload: { relativePath: rel, sourceCwd: '/s', encoding: 'utf8', content: rollout } });
    if (!result.ok) throw new Error(result.message);
    const { threadId, forkNote } = result.value;
    expect(threadId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(forkNote).toContain(`imported as a fork, thread ${threadId}`);
    expect(await readFile(join(home, rel), 'utf8')).toBe(here);
    const fork = await findRollout(home, threadId);
    expect(fork).toBe(rel.replace(id, threadId));
    const written = (await readFile(join(home, fork!), 'utf8')).split('\n');
    expect(JSON.parse(written[0]!)).toMatchObject({ type: 'session_meta', payload: { id: threadId, cwd: '/src/app' } });
    expect(written.slice(1)).toEqual([...lines.slice(1), '']);
  });

  describe('a compressed rollout, decoded as a stream (fzstd here: this Node has no zstd)', () => {
    const zstRel = `${rel}.zst`;
    /** `text` as a zstd file carried in a checkpoint, its export's payload declaring `decodedSize`. */
    async function carried(file: Buffer | string, decodedSize?: number) {
      const path = join(home, 'carried.zst');
      if (typeof file === 'string') writeRawZstd(path, [Buffer.from(file)]);
      else await writeFile(path, file);
      const payload = { relativePath: zstRel, sourceCwd: '/s', encoding: 'zstd', ...(decodedSize !== undefined && { decodedSize }) };
      return { payload, files: [{ name: 'rollout', path, size: (await readFile(path)).length }] };
    }

    it('checks its lines, exports its decoded size, and forks it as a plain rollout', async () => {
      await mkdir(join(home, 'sessions/2025/08/11'), { recursive: true });
      const path = join(home, zstRel);
      const size = writeRawZstd(path, [Buffer.from(rollout)]);
      const exported = await exportRollout(home, id, '/s', fzstdDecoder);
      expect(exported).toMatchObject({ ok: true, value: { payload: { encoding: 'zstd', decodedSize: size } } });
      const other = await mkdtemp(join(tmpdir(), 'baton-codex-target-'));
      try {
        expect(await importRollout(other, id, exported.ok ? exported.value : { payload: null }, fzstdDecoder)).toMatchObject({ ok: true });
        // Here already, then it went on (one line more here): the moved one is forked, decoded and written plain.
        await writeFile(join(other, zstRel), `${rollout}\n{"type":"event_msg","payload":{}}\n`.replace(/^/, ''));
        writeRawZstd(join(other, zstRel), [Buffer.from(`${rollout.split('\n')[0]}\n{"other":1}\n`)]);
        const forked = await importRollout(other, id, await carried(rollout, Buffer.byteLength(rollout)), fzstdDecoder);
        if (!forked.ok) throw new Error(forked.message);
        const written = await readFile(join(other, rel.replace(id, forked.value.threadId)), 'utf8');
        expect(written.split('\n').slice(1)).toEqual([...rollout.split('\n').slice(1), '']);
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    });

    it('refuses one that decodes to another size than declared, a bomb, a damaged line and a line over 16 MiB, writing nothing', async () => {
      const refused = async (data: Awaited<ReturnType<typeof carried>>) => {
        const result = await importRollout(home, id, data, fzstdDecoder);
        expect(await readdir(join(home, 'sessions')).catch(() => [])).toEqual([]);
        return result.ok ? 'imported' : result.message;
      };
      expect(await refused(await carried(rollout, 10))).toBe('The Codex rollout is refused: it decompresses to more than 10 bytes.');
      expect(await refused(await carried(rollout, Buffer.byteLength(rollout) + 1))).toBe(
        `The Codex rollout is refused: it decompresses to ${Buffer.byteLength(rollout)} bytes, not the ${Buffer.byteLength(rollout) + 1} it declares.`,
      );
      const bomb = zstdBomb(Buffer.from(`${rollout}\n`), 64 * 1024 ** 3);
      expect(bomb.length).toBeLessThan(3 * 1024 * 1024);
      expect(await refused(await carried(bomb, 1024 * 1024))).toBe(
        'The Codex rollout is refused: it decompresses to more than 1048576 bytes.',
      );
      expect(await refused(await carried(`${rollout}\n{oops\n`))).toBe('The Codex rollout is damaged: line 7 is not JSON.');
      expect(await refused(await carried(`${rollout}\n"${'x'.repeat(17 * 1024 * 1024)}"\n`))).toBe(
        'The Codex rollout is damaged: line 7 is longer than 16777216 bytes.',
      );
    });
  });
});
