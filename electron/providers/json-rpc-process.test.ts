import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { JsonRpcProcess, type RpcServerRequest } from './json-rpc-process.ts';

type Methods = { echo: [{ text: string }, { said: string }]; fail: [Record<string, never>, never]; hang: [Record<string, never>, never] };

/**
 * A small JSON-RPC server in node: answers `echo`, refuses `fail`, never answers `hang`, asks the
 * client `confirm` once it has been told `ready` and reports the answer as a `confirmed`
 * notification; it exits at the end of its input unless told to `linger`.
 */
const SERVER = `
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let linger = false;
console.log('a log line that is not a message');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'echo') send({ id: m.id, result: { said: m.params.text } });
  else if (m.method === 'fail') send({ id: m.id, error: { code: -32600, message: 'no such thing' } });
  else if (m.method === 'ready') send({ id: 'q1', method: 'confirm', params: { what: 'x' } });
  else if (m.method === 'linger') linger = true;
  else if (m.id === 'q1') send({ method: 'confirmed', params: m.result });
});
rl.on('close', () => { if (!linger) process.exit(0); else setInterval(() => {}, 1000); });`;

function start(onRequest: (rpc: JsonRpcProcess<Methods>, request: RpcServerRequest) => void = () => undefined) {
  const notes: [string, unknown][] = [];
  const rpc: JsonRpcProcess<Methods> = new JsonRpcProcess<Methods>(
    { command: process.execPath, args: ['-e', SERVER], cwd: tmpdir(), env: process.env },
    { notification: (method, params) => notes.push([method, params]), request: (request) => onRequest(rpc, request) },
  );
  return { rpc, notes };
}

describe('JSON-RPC over a child process', () => {
  it('matches each result to its request, and tells a server error and a timeout apart', async () => {
    const { rpc } = start();
    expect(await rpc.started).toBeNull();
    const [a, b] = await Promise.all([rpc.request('echo', { text: 'one' }), rpc.request('echo', { text: 'two' })]);
    expect([a, b]).toEqual([
      { ok: true, value: { said: 'one' } },
      { ok: true, value: { said: 'two' } },
    ]);
    expect(await rpc.request('fail', {})).toEqual({ ok: false, code: 'rpc_error', message: 'no such thing' });
    expect(await rpc.request('hang', {}, 100)).toMatchObject({ ok: false, code: 'timeout' });
    expect(await rpc.close()).toMatchObject({ code: 0, signal: null });
    expect(await rpc.request('echo', { text: 'late' })).toMatchObject({ ok: false, code: 'closed' });
  });

  it("answers the server's own requests and hears its notifications", async () => {
    const { rpc, notes } = start((self, request) => self.respond(request.id, { yes: request.method === 'confirm' }));
    rpc.notify('ready');
    await rpc.request('echo', { text: 'sync' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(notes).toEqual([['confirmed', { yes: true }]]);
    await rpc.close();
  });

  it('ends a request the process leaves unanswered when it exits, and closes a lingering server with SIGTERM', async () => {
    const { rpc } = start();
    rpc.notify('linger');
    const pending = rpc.request('hang', {}, 10_000);
    const before = Date.now();
    expect(await rpc.close(200)).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(Date.now() - before).toBeLessThan(2000);
    expect(await pending).toMatchObject({ ok: false, code: 'closed' });
  });

  it('reports a command that cannot start', async () => {
    const rpc = new JsonRpcProcess<Methods>(
      { command: '/nonexistent/codex', args: [], cwd: tmpdir(), env: process.env },
      { notification: () => undefined, request: () => undefined },
    );
    expect(await rpc.started).toMatch(/ENOENT/);
    expect(await rpc.exited).toMatchObject({ code: null, spawnError: expect.stringMatching(/ENOENT/) });
    expect(await rpc.request('echo', { text: 'x' })).toMatchObject({ ok: false, code: 'closed' });
  });
});
