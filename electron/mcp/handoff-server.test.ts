import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import type { HandoffCreateResult } from '../packet/handoff-create.ts';
import type { HandoffResumeReport } from '../packet/handoff-resume.ts';

const BIN = join(import.meta.dirname, '../../bin/baton.js');
let sandbox: GitSandbox;
let repo: string;
let client: Client;
let transport: StdioClientTransport;
const protocolErrors: Error[] = [];

beforeAll(async () => {
  sandbox = createGitSandbox('baton-mcp-');
  repo = sandbox.clone(sandbox.makeOrigin('app'), 'repo');
  sandbox.branchWithUpstream(repo, 'feature/mcp');
  sandbox.commitFile(repo, 'src/tool.ts', 'export {};\n');
  const env = Object.fromEntries(Object.entries(sandbox.env).filter((e): e is [string, string] => e[1] !== undefined));
  transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', repo], env, stderr: 'pipe' });
  client = new Client({ name: 'baton-test', version: '1.0.0' });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  sandbox.cleanup();
});

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
      changed_files: ['src/tool.ts'],
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
