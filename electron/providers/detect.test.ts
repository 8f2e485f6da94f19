import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentCliPath, agentCliXdgCache } from '../../dev-env/agent-clis/cli-cache.ts';
import { STAND_IN_BIN } from '../../dev-env/stand-ins/stand-ins.ts';
import { detectProviders, findOnPath } from './detect.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-detect-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('detectProviders', () => {
  it('finds the stand-in claude and codex on PATH with their versions, and the demo agent always', async () => {
    const views = await detectProviders({ env: { PATH: [STAND_IN_BIN, dirname(process.execPath)].join(delimiter) } });
    expect(views).toEqual([
      { id: 'demo', label: 'Demo agent', available: true, version: 'built in', checkpointImport: true, permissions: true, adoption: false },
      {
        id: 'claude-code',
        label: 'Claude Code',
        available: true,
        version: '1.0.99 (Claude Code stand-in)',
        checkpointImport: true,
        permissions: true,
        adoption: true,
      },
      {
        id: 'codex',
        label: 'Codex',
        available: true,
        version: 'codex-cli 0.0.0-standin',
        checkpointImport: true,
        permissions: true,
        adoption: true,
      },
      {
        id: 'copilot',
        label: 'GitHub Copilot CLI',
        available: false,
        version: null,
        checkpointImport: true,
        permissions: true,
        adoption: true,
      },
      {
        id: 'qwen-code',
        label: 'Qwen Code',
        available: false,
        version: null,
        checkpointImport: true,
        permissions: true,
        adoption: true,
      },
      {
        id: 'command',
        label: 'Command-line agent',
        available: false,
        version: null,
        checkpointImport: false,
        permissions: false,
        adoption: false,
      },
    ]);
  });

  it('reports CLIs missing from PATH as unavailable', async () => {
    const views = await detectProviders({ env: { PATH: dir } });
    expect(views.map((v) => [v.id, v.available])).toEqual([
      ['demo', true],
      ['claude-code', false],
      ['codex', false],
      ['copilot', false],
      ['qwen-code', false],
      ['command', false],
    ]);
  });

  it('finds the real copilot and qwen on PATH with their versions', async () => {
    const env = {
      PATH: [dirname(agentCliPath('copilot')), dirname(process.execPath)].join(delimiter),
      HOME: dir,
      XDG_CACHE_HOME: agentCliXdgCache(),
    };
    // Generous: the folder holds every installed CLI, and as a normal user on a loaded machine their --version took 33 s.
    const views = await detectProviders({ env, timeoutMs: 100_000 });
    expect(views.find((v) => v.id === 'copilot')).toMatchObject({
      available: true,
      version: expect.stringMatching(/^GitHub Copilot CLI 1\.0\.102\b/),
    });
    expect(views.find((v) => v.id === 'qwen-code')).toMatchObject({ available: true, version: '0.15.10' });
  }, 120_000);

  it('gives up on a binary whose --version hangs, within the bound', async () => {
    await writeFile(join(dir, 'claude'), '#!/bin/sh\nsleep 30\n');
    await chmod(join(dir, 'claude'), 0o755);
    const started = Date.now();
    const views = await detectProviders({ env: { PATH: dir }, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(views.find((v) => v.id === 'claude-code')).toMatchObject({ available: false, version: null });
  });

  it('counts a configured command agent when its program is found', async () => {
    const views = await detectProviders({ env: { PATH: dir }, commandArgv: [process.execPath, '-e', ''] });
    expect(views.find((v) => v.id === 'command')?.available).toBe(true);
    const missing = await detectProviders({ env: { PATH: dir }, commandArgv: ['no-such-agent'] });
    expect(missing.find((v) => v.id === 'command')?.available).toBe(false);
  });

  it('does not take a non-executable file for a binary', async () => {
    await writeFile(join(dir, 'codex'), 'not a program');
    expect(await findOnPath('codex', { PATH: dir })).toBeNull();
  });
});
