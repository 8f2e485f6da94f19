import { spawnSync } from 'node:child_process';
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

/** Whether this user may make a network namespace here: root may; a normal user inside a user namespace of its own. */
function namespaceAllowed(): boolean {
  if (process.platform !== 'linux') return false;
  if (process.getuid?.() === 0) return true;
  return spawnSync('unshare', ['--map-current-user', '--keep-caps', '--net', 'true']).status === 0;
}

describe('the agent-CLI lab', () => {
  it("runs the pinned CLIs, and the device's provider detection finds them with their versions", async () => {
    const found = await detectProviders({ env: home.env, timeoutMs: 10_000 });
    expect(found.filter((p) => p.id === 'claude-code' || p.id === 'codex').map((p) => [p.id, p.available, p.version])).toEqual([
      ['claude-code', true, `${AGENT_CLI_VERSIONS.claude} (Claude Code)`],
      ['codex', true, `codex-cli ${AGENT_CLI_VERSIONS.codex}`],
    ]);
  });

  it('runs them in a loopback-only namespace, made by root or in a user namespace of a normal user, else says why not', () => {
    const madeBy = process.getuid?.() === 0 ? 'root' : 'user-namespace';
    if (namespaceAllowed()) expect(lab.isolation).toEqual({ kind: 'netns', madeBy, pid: expect.any(Number), dnsLogging: true });
    else
      expect(lab.isolation).toEqual({
        kind: 'none',
        reason: expect.stringMatching(madeBy === 'root' ? /installed|Linux/ : /user namespace/),
      });
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
    const checks = {
      public: `console.log('public', await tryConnect('192.0.2.1', 443));`,
      machine: `console.log('machine', await tryConnect('127.0.0.1', ${port}));`,
      dns: `console.log('dns', await new Promise((r) => dns.lookup('api.anthropic.com', (e) => r(e ? e.code : 'resolved'))));`,
    };
    const probe = (lines: string[]) =>
      [
        `const net = require('net'), dns = require('dns');`,
        `const tryConnect = (host, port) => new Promise((r) => {`,
        `  const socket = net.connect(port, host).on('connect', () => r('connected')).on('error', (e) => r(e.code));`,
        `  socket.setTimeout(3000, () => r('timeout'));`,
        `});`,
        `(async () => {`,
        ...lines,
        `  process.exit(0);`,
        `})();`,
      ].join('\n');
    try {
      if (lab.isolation.kind === 'netns') {
        const run = await lab.run(process.execPath, ['-e', probe(Object.values(checks))], { cwd: home.home, env: home.env });
        expect(run.stdout.trim().split('\n')).toEqual(['public ENETUNREACH', 'machine ECONNREFUSED', 'dns ENOTFOUND']);
        expect(lab.dnsQueries).toContain('api.anthropic.com');
      } else {
        // Without a namespace nothing keeps the CLIs in: they reach the machine's own listeners (the
        // lab said so at start); other hosts and DNS are whatever this machine's network gives.
        const run = await lab.run(process.execPath, ['-e', probe([checks.machine])], { cwd: home.home, env: home.env });
        expect(run.stdout.trim()).toBe('machine connected');
      }
    } finally {
      outside.close();
    }
  });
});
