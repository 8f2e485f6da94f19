import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectProviders } from '../../electron/providers/detect.ts';
import { AgentCliLab } from './agent-cli-lab.ts';
import type { AgentHome } from './agent-homes.ts';
import { AGENT_CLI_VERSIONS } from './cli-cache.ts';

let lab: AgentCliLab;
let home: AgentHome;
beforeAll(async () => {
  lab = await AgentCliLab.start();
  home = await lab.home('isolation');
});
afterAll(() => lab.close());

const claudeTurn = (text: string) =>
  lab.run('claude', ['-p', '--output-format', 'stream-json', '--input-format', 'stream-json', '--verbose'], {
    cwd: home.home,
    env: home.env,
    stdin: `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } })}\n`,
  });
const codexTurn = (text: string) =>
  lab.run('codex', ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '-'], {
    cwd: home.home,
    env: home.env,
    stdin: text,
  });

describe('the agent-CLI lab', () => {
  it("runs the pinned CLIs, and the device's provider detection finds them with their versions", async () => {
    const found = await detectProviders({ env: home.env, timeoutMs: 10_000 });
    expect(found.filter((p) => p.id === 'claude-code' || p.id === 'codex').map((p) => [p.id, p.available, p.version])).toEqual([
      ['claude-code', true, `${AGENT_CLI_VERSIONS.claude} (Claude Code)`],
      ['codex', true, `codex-cli ${AGENT_CLI_VERSIONS.codex}`],
    ]);
  });

  it('runs them in a loopback-only namespace where this machine allows it (root), else says why', () => {
    if (process.getuid?.() === 0) expect(lab.isolation).toEqual({ kind: 'netns', pid: expect.any(Number), dnsLogging: true });
    else expect(lab.isolation).toEqual({ kind: 'none', reason: expect.stringContaining('root') });
  });

  it('every request the CLIs made reached the scripted server, and they looked up no other host', async () => {
    const before = lab.server.requests.length;
    const claude = await claudeTurn('say hello');
    const codex = await codexTurn('say hello');
    expect(claude.stdout).toContain('"result":"Hello from the scripted model."');
    expect(codex.stdout).toContain('"text":"Hello from the scripted model."');
    const made = lab.server.requests.slice(before).map((r) => `${r.method} ${r.path} ${r.reply}`);
    expect(made).toEqual(['POST /v1/messages text', 'POST /v1/responses text']);
    expect(lab.dnsQueries).toEqual([]);
  });

  it('reaches nothing else: no other address, no listener of the machine, no name resolves (and the lookup is seen)', async () => {
    const outside = createServer((_req, res) => res.end('outside'));
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', resolve));
    const port = (outside.address() as AddressInfo).port;
    const probe = [
      `const net = require('net'), dns = require('dns');`,
      `const tryConnect = (host, port) => new Promise((r) => net.connect(port, host).on('connect', () => r('connected')).on('error', (e) => r(e.code)));`,
      `(async () => {`,
      `  console.log('public', await tryConnect('192.0.2.1', 443));`,
      `  console.log('machine', await tryConnect('127.0.0.1', ${port}));`,
      `  console.log('dns', await new Promise((r) => dns.lookup('api.anthropic.com', (e) => r(e ? e.code : 'resolved'))));`,
      `})();`,
    ].join('\n');
    try {
      const run = await lab.run(process.execPath, ['-e', probe], { cwd: home.home, env: home.env });
      if (lab.isolation.kind === 'netns') {
        expect(run.stdout.trim().split('\n')).toEqual(['public ENETUNREACH', 'machine ECONNREFUSED', 'dns ENOTFOUND']);
        expect(lab.dnsQueries).toContain('api.anthropic.com');
      } else {
        expect(run.stdout).toContain('machine connected');
      }
    } finally {
      outside.close();
    }
  });
});
