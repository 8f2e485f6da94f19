import { spawn } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { HOSTILE_ATTRIBUTES, hostileKit, submoduleOrigin, type HostileKit } from '../../dev-env/hostile-repo.ts';
import type { HandoffCreateResult } from '../packet/handoff-create.ts';
import type { HandoffResumeReport } from '../packet/handoff-resume.ts';

const BIN = join(import.meta.dirname, '../../bin/baton.js');
let sandbox: GitSandbox;
let repo: string;
let client: Client;
let transport: StdioClientTransport;
let kit: HostileKit;
const protocolErrors: Error[] = [];

/** `baton mcp` on the test repository as a plain child process, for what the SDK client would not send. */
function rawServer() {
  const child = spawn(process.execPath, [BIN, 'mcp', '--root', repo], { stdio: ['pipe', 'pipe', 'pipe'], env: sandbox.env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const lines = () => stdout.split('\n').filter(Boolean);
  return { child, exited, lines, stderr: () => stderr, stdout: () => stdout };
}

beforeAll(async () => {
  sandbox = createGitSandbox('baton-mcp-');
  kit = hostileKit(sandbox.root);
  const origin = sandbox.makeOrigin('app');
  repo = sandbox.clone(origin, 'repo');
  // A submodule on main, whose own config and hooks are armed too.
  sandbox.addSubmodule(repo, 'vendor/lib', submoduleOrigin(sandbox, 'lib'));
  sandbox.push(repo);
  sandbox.branchWithUpstream(repo, 'feature/mcp');
  sandbox.commitFile(repo, '.gitattributes', HOSTILE_ATTRIBUTES);
  sandbox.commitFile(repo, 'src/tool.ts', 'export {};\n');
  // Every git read the tools make meets a config whose programs each leave a marker.
  kit.arm(repo);
  kit.armSubmodule(repo, 'vendor/lib');
  kit.armRemoteHelper(repo, origin);
  const env = Object.fromEntries(Object.entries(sandbox.env).filter((e): e is [string, string] => e[1] !== undefined));
  env.PATH = `${kit.bin}:${env.PATH ?? ''}`;
  transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', repo], env, stderr: 'pipe' });
  client = new Client({ name: 'baton-test', version: '1.0.0' });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  sandbox.cleanup();
});

async function waitUntil(done: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error('timed out waiting for the server');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('baton mcp over stdio, through the SDK client', () => {
  it('lists handoff_create and handoff_resume with descriptions and input schemas', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(['handoff_create', 'handoff_resume']);
    expect(byName.get('handoff_create')!.description).toMatch(/docs\/handoffs/);
    expect(Object.keys(byName.get('handoff_create')!.inputSchema.properties ?? {})).toEqual([
      'goal',
      'acceptance_criteria',
      'scope_assumptions',
      'current_state',
      'next_action',
      'verification',
      'provider',
      'base_ref',
    ]);
    expect(Object.keys(byName.get('handoff_resume')!.inputSchema.properties ?? {})).toEqual(['slug']);
    expect(byName.get('handoff_resume')!.annotations?.readOnlyHint).toBe(true);
  });

  it('creates a packet: structured result plus a one-line summary', async () => {
    const result = await client.callTool({
      name: 'handoff_create',
      arguments: {
        goal: 'Ship the MCP tools',
        next_action: 'Write the README',
        provider: 'claude-code',
        verification: [{ claim: 'tests pass', probe: 'npm test', result: 'passed' }],
      },
    });
    const structured = result.structuredContent as Extract<HandoffCreateResult, { ok: true }>;
    expect(structured).toMatchObject({
      ok: true,
      slug: 'feature-mcp',
      path: 'docs/handoffs/feature-mcp.md',
      memory: { status: 'skipped', reason: 'no_backend' },
    });
    expect(structured.packet.verified).toMatchObject({
      branch: 'feature/mcp',
      head_sha: sandbox.head(repo),
      provider: 'claude-code',
      changed_files: ['.gitattributes', 'src/tool.ts'],
    });
    expect(structured.packet.asserted.verification).toEqual([{ claim: 'tests pass', probe: 'npm test', result: 'not run' }]);
    const text = (result.content as Array<{ type: string; text: string }>)[0]!;
    expect(text.type).toBe('text');
    expect(text.text).toMatch(/^Wrote docs\/handoffs\/feature-mcp\.md for feature\/mcp/);
    expect(text.text.includes('\n')).toBe(false);
    expect(result.isError).toBe(false);
    expect(existsSync(join(repo, 'docs/handoffs/feature-mcp.md'))).toBe(true);
  });

  it('resumes it with keys in authority order and reports drift', async () => {
    sandbox.commitFile(repo, 'src/later.ts', 'later\n');
    const result = await client.callTool({ name: 'handoff_resume', arguments: {} });
    const structured = result.structuredContent as unknown as HandoffResumeReport;
    expect(Object.keys(structured)).toEqual(['ok', 'slug', 'path', 'verified', 'warnings', 'asserted', 'memory']);
    expect(structured.warnings.map((w) => w.code)).toEqual(['head_moved', 'files_diverged']);
    expect(structured.asserted).toMatchObject({ goal: 'Ship the MCP tools', next_action: 'Write the README' });
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/2 drift warnings: head_moved, files_diverged/);
  });

  it('returns refusals as structured values marked isError', async () => {
    const bad = await client.callTool({ name: 'handoff_resume', arguments: { slug: '../x' } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ ok: false, reason: 'invalid_slug' });
    const big = await client.callTool({ name: 'handoff_create', arguments: { goal: 'x'.repeat(2049) } });
    expect(big.structuredContent).toMatchObject({ ok: false, reason: 'field_over_cap', field: 'goal', limit: 2048 });
  });

  it("runs nothing the repository's config names (monitor, filters, diff programs, hooks)", async () => {
    const past = new Date(Date.now() - 3600_000);
    for (const file of ['README.md', 'src/tool.ts', '.gitattributes', 'vendor/lib/README.md', 'vendor/lib/.gitattributes'])
      utimesSync(join(repo, file), past, past);
    kit.clear();
    expect((await client.callTool({ name: 'handoff_create', arguments: { goal: 'Guarded reads' } })).isError).toBe(false);
    expect((await client.callTool({ name: 'handoff_resume', arguments: {} })).isError).toBe(false);
    expect(kit.fired()).toEqual([]);
    // The same status read as the user's own git fires the markers, so the check above can fail.
    // Git compares whole seconds, so this touch goes further back than the first one.
    const earlier = new Date(Date.now() - 7200_000);
    utimesSync(join(repo, 'README.md'), earlier, earlier);
    sandbox.git(repo, ['status', '--porcelain']);
    expect(kit.fired()).toEqual(expect.arrayContaining(['clean', 'fsmonitor', 'submodule-fsmonitor']));
  });

  it('answers an over-limit or malformed message with a JSON-RPC error and goes on serving', async () => {
    const server = rawServer();
    const huge = `{"method":"ping","params":{"pad":"${'x'.repeat(11 * 1024 * 1024)}"},"jsonrpc":"2.0","id":1}\n`;
    server.child.stdin.write(huge);
    server.child.stdin.write('not json\n');
    server.child.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await waitUntil(() => server.lines().length >= 3);
    const [tooBig, parse, pong] = server.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(tooBig).toMatchObject({ id: 1, error: { code: -32600, message: expect.stringContaining('10485760-byte limit') } });
    expect(parse).toMatchObject({ id: null, error: { code: -32700 } });
    expect(pong).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
  });

  it('exits 1 with one line on stderr naming the limit when the input ends inside an over-limit message', async () => {
    const server = rawServer();
    server.child.stdin.end(`{"method":"ping","params":{"pad":"${'x'.repeat(11 * 1024 * 1024)}`);
    expect(await server.exited).toBe(1);
    const lines = server.stderr().trim().split('\n');
    expect(lines.at(-1)).toBe('baton mcp: the input ended inside a message over the 10485760-byte limit');
    expect(lines.filter((l) => l.includes('limit'))).toHaveLength(1);
    expect(server.stdout()).toBe('');
  });

  it('writes nothing but protocol to stdout', () => {
    expect(protocolErrors).toEqual([]);
  });

  it('answers calls sent together on one stdin in order, the resume reading what the create wrote, before it closes', async () => {
    const other = sandbox.clone(sandbox.makeOrigin('batch'), 'batch');
    sandbox.branchWithUpstream(other, 'feature/batch');
    const child = spawn(process.execPath, [BIN, 'mcp', '--root', other], { stdio: ['pipe', 'pipe', 'pipe'], env: sandbox.env });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const call = (id: number, name: string, args: object) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } };
    // One write, then stdin closes at once: as `printf … | baton mcp` does.
    child.stdin.end(
      [
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        call(2, 'handoff_create', { goal: 'Batch the calls' }),
        call(3, 'handoff_resume', {}),
        call(4, 'handoff_resume', { slug: '../x' }),
      ].join('\n') + '\n',
    );
    expect(await exited).toBe(0);
    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { structuredContent?: { ok: boolean; reason?: string } } });
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(answers.slice(1).map((a) => a.result.structuredContent)).toEqual([
      expect.objectContaining({ ok: true, slug: 'feature-batch' }),
      expect.objectContaining({ ok: true, slug: 'feature-batch' }),
      expect.objectContaining({ ok: false, reason: 'invalid_slug' }),
    ]);
  });

  it('stops cleanly on SIGTERM and when the client closes stdin, printing nothing', async () => {
    for (const stop of ['SIGTERM', 'stdin'] as const) {
      const child = spawn(process.execPath, [BIN, 'mcp', '--root', repo], { stdio: ['pipe', 'pipe', 'pipe'], env: sandbox.env });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      await new Promise<void>((done) => child.stderr.on('data', (chunk: Buffer) => chunk.toString().includes('serving') && done()));
      if (stop === 'SIGTERM') child.kill('SIGTERM');
      else child.stdin.end();
      expect(await exited).toBe(0);
      expect(stdout).toBe('');
    }
  });
});
