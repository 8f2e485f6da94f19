/**
 * `baton sessions` as a user runs it: listing this machine's Claude Code and Codex sessions of a
 * workspace from the CLIs' own files, and adopting one through a running `baton device`.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClaudeSession, writeCodexRollout } from '../dev-env/cli-session-files.ts';
import { createGitSandbox, type GitSandbox } from '../dev-env/git-sandbox.ts';
import { DeviceClient, PROJECT_ROOT, startBaton, type RunningProcess } from '../dev-env/process-harness.ts';

const run = promisify(execFile);
let sandbox: GitSandbox;
let env: NodeJS.ProcessEnv;
let workspace: string;
const processes: RunningProcess[] = [];

async function baton(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(PROJECT_ROOT, 'bin', 'baton.js'), ...args], { cwd: PROJECT_ROOT, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const turns = (user: string) => [{ user, assistant: `Done: ${user}` }];

beforeAll(() => {
  sandbox = createGitSandbox('baton-sessions-cli-');
  env = { ...sandbox.env, CLAUDE_CONFIG_DIR: join(sandbox.root, 'claude'), CODEX_HOME: join(sandbox.root, 'codex') };
  workspace = sandbox.clone(sandbox.makeOrigin('app'), 'app');
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop(5000)));
  sandbox?.cleanup();
});

describe('baton sessions', () => {
  it("lists the workspace's Claude Code and Codex sessions newest first, one line each, or as JSON", async () => {
    const claude = writeClaudeSession(env.CLAUDE_CONFIG_DIR!, workspace, {
      turns: turns('Fix the flaky parser test'),
      modifiedAt: new Date('2026-11-02T10:00:00Z'),
    });
    const codex = writeCodexRollout(env.CODEX_HOME!, workspace, {
      turns: turns('Port the CLI'),
      startedAt: new Date('2026-11-01T09:00:00Z'),
      modifiedAt: new Date('2026-11-03T11:30:00Z'),
    });
    writeCodexRollout(env.CODEX_HOME!, sandbox.root, { turns: turns('another folder') });
    const listed = await baton(['sessions', '--workspace', workspace]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual([
      `2026-11-03 11:30  codex        ${codex.threadId}  Port the CLI`,
      `2026-11-02 10:00  claude-code  ${claude.sessionId}  Fix the flaky parser test`,
    ]);
    const json = await baton(['sessions', 'list', '--workspace', workspace, '--provider', 'claude-code', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        provider: 'claude-code',
        sessionId: claude.sessionId,
        title: 'Fix the flaky parser test',
        updatedAt: Date.parse('2026-11-02T10:00:00Z'),
      },
    ]);
  });

  it('refuses a provider that keeps no sessions and a missing workspace, saying why', async () => {
    const bad = await baton(['sessions', '--workspace', workspace, '--provider', 'demo']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--provider must be one of claude-code, codex, copilot, qwen-code');
    const missing = await baton(['sessions', '--workspace', join(sandbox.root, 'nowhere')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nowhere does not exist/);
  });

  it('adopts a session through the running device: it becomes a Baton session there with its history; a second adopt is refused', async () => {
    const existing = writeClaudeSession(env.CLAUDE_CONFIG_DIR!, workspace, { turns: turns('Write the changelog') });
    const backend = await startBaton(['backend', '--data', join(sandbox.root, 'data'), '--port', '0'], 'backend: ', env);
    processes.push(backend);
    const device = await startBaton(
      ['device', '--profile', join(sandbox.root, 'laptop'), '--backend', backend.url, '--name', 'laptop', '--create-account'],
      'ui: ',
      env,
    );
    processes.push(device);
    const args = [
      'sessions',
      'adopt',
      '--device',
      device.url,
      '--workspace',
      workspace,
      '--provider',
      'claude-code',
      '--id',
      existing.sessionId,
    ];
    const adopted = await baton([...args, '--permission', 'ask']);
    expect(adopted.code).toBe(0);
    const view = JSON.parse(adopted.stdout) as { id: string; title: string; provider: string; permission: string; isOwner: boolean };
    expect(view).toMatchObject({ title: 'Write the changelog', provider: 'claude-code', permission: 'ask', isOwner: true });
    const client = await DeviceClient.connect(device.url);
    try {
      const detail = await client.call('getSession', { sessionId: view.id });
      expect(detail?.transcript.slice(0, 2).map((e) => e.text)).toEqual(['Write the changelog', 'Done: Write the changelog']);
    } finally {
      client.close();
    }
    const again = await baton(args);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already_adopted');
  }, 90_000);
});
