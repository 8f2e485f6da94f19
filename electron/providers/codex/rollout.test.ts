import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importRollout, readRollout } from './rollout.ts';

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

describe('Codex rollout', () => {
  it('reads messages into the transcript, skipping injected context', () => {
    expect(readRollout(rollout).map((e) => [e.role, e.text, e.at])).toEqual([
      ['user', 'hello', Date.parse('2025-08-11T01:02:05.000Z')],
      ['assistant', 'hi', Date.parse('2025-08-11T01:02:06.000Z')],
    ]);
  });

  it('rewrites cwd only in session_meta and turn_context lines', async () => {
    const result = await importRollout(home, id, '/dst/app', {
      relativePath: rel,
      sourceCwd: '/src/app',
      encoding: 'utf8',
      content: rollout,
    });
    if (!result.ok) throw new Error(result.message);
    const lines = result.value
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { payload: { cwd?: string; git?: unknown } });
    expect(lines.map((l) => l.payload.cwd)).toEqual(['/dst/app', '/dst/app/pkg', undefined, undefined, undefined, '/untouched']);
    expect(lines[0]?.payload.git).toEqual({ branch: 'main' });
    expect(await readdir(join(home, 'sessions/2025/08/11'))).toEqual([`rollout-2025-08-11T01-02-03-${id}.jsonl`]);
  });

  it('imports a zstd rollout when this Node can decompress it, else refuses it saying why', async () => {
    const z = zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer };
    const compress = z.zstdCompressSync;
    const content = compress ? compress(Buffer.from(rollout)).toString('base64') : Buffer.from('not really zstd').toString('base64');
    const result = await importRollout(home, id, '/dst/app', {
      relativePath: `${rel}.zst`,
      sourceCwd: '/src/app',
      encoding: 'zstd-base64',
      content,
    });
    if (compress) {
      expect(result.ok).toBe(true);
      expect(await readdir(join(home, 'sessions/2025/08/11'))).toEqual([`rollout-2025-08-11T01-02-03-${id}.jsonl`]);
    } else {
      expect(result).toMatchObject({ ok: false, code: 'import_check_failed', message: expect.stringContaining('cannot decompress zstd') });
      await expect(readdir(join(home, 'sessions'))).rejects.toThrow();
    }
  });

  it('refuses a damaged rollout', async () => {
    const result = await importRollout(home, id, '/dst', {
      relativePath: rel,
      sourceCwd: '/src',
      encoding: 'utf8',
      content: `${rollout}\n{broken`,
    });
    expect(result).toMatchObject({ ok: false, code: 'import_check_failed', message: expect.stringContaining('line 7 is not JSON') });
  });
});
