import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { DeviceApiEvent, DeviceApiHandlers } from '../../shared/device-api.ts';
import { METHOD_NAMES, type BridgeResponse } from '../../shared/device-bridge.ts';
import { startWebHost, type WebHost } from './web-host.ts';

/** Handlers at the edge: each records its call and answers with its own name. */
function recordingHandlers(calls: { method: string; input: unknown }[]): DeviceApiHandlers {
  const handlers: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const method of METHOD_NAMES) {
    handlers[method] = async (input) => {
      calls.push({ method, input });
      return { answeredBy: method };
    };
  }
  return handlers as unknown as DeviceApiHandlers;
}

function rawGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a socket; resolves with it when open, or with the refusal status. */
function connect(url: string, headers: Record<string, string> = {}): Promise<{ socket?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      socket.terminate();
    });
    socket.once('error', () => resolve({ status: -1 }));
  });
}

function nextMessage(socket: WebSocket): Promise<unknown> {
  return new Promise((resolve) => socket.once('message', (data) => resolve(JSON.parse(data.toString()))));
}

describe('web host', () => {
  let dir: string;
  let host: WebHost;
  let calls: { method: string; input: unknown }[];
  let emit: (event: DeviceApiEvent, payload: unknown) => void;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-web-host-'));
    mkdirSync(join(dir, 'renderer', 'assets'), { recursive: true });
    writeFileSync(
      join(dir, 'renderer', 'index.html'),
      '<!doctype html><title>Baton</title><script type="module" src="./assets/app.js"></script>' +
        '<link rel="stylesheet" crossorigin href="./assets/app-1a2b.css">',
    );
    writeFileSync(join(dir, 'renderer', 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(dir, 'renderer', 'assets', 'app-1a2b.css'), 'body { margin: 0 }');
    writeFileSync(join(dir, 'secret.txt'), 'outside the renderer');
    calls = [];
    host = await startWebHost({
      port: 0,
      rendererDir: join(dir, 'renderer'),
      handlers: () => recordingHandlers(calls),
      subscribe: (listener) => {
        emit = listener;
        return () => undefined;
      },
    });
  });

  afterEach(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const apiUrl = (token: string) => `ws://127.0.0.1:${host.port}/api?token=${encodeURIComponent(token)}`;

  it('serves the renderer page with a strict CSP', async () => {
    const page = await rawGet(host.port, `/?token=${host.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Baton</title>');
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(String(page.headers['content-security-policy'])).not.toContain('unsafe');
    expect((await rawGet(host.port, '/assets/app.js')).status).toBe(200);
  });

  it('answers its page opened without the right token with how to get the link, and runs nothing there', async () => {
    for (const [path, said] of [
      ['/', 'opened without its token'],
      ['/index.html?token=old', 'a token this device does not take'],
    ] as const) {
      const page = await rawGet(host.port, path);
      expect(page.status, path).toBe(401);
      expect(String(page.headers['content-type'])).toContain('text/html');
      expect(page.body).toContain(said);
      expect(page.body).toContain('baton open --profile DIR');
      expect(page.body).toContain(`port ${host.port}`);
      expect(page.body).not.toContain('<title>Baton</title>');
      expect(page.body).not.toContain('<script');
      expect(page.body).not.toContain(host.token);
      // In the UI's own styles, which are served without the token.
      expect(page.body).toContain('<link rel="stylesheet" href="./assets/app-1a2b.css">');
      expect(page.body).toContain('class="card setup-card token-card"');
    }
    expect((await rawGet(host.port, '/assets/app-1a2b.css')).status).toBe(200);
  });

  it('refuses paths that leave the renderer folder', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/..%2fsecret.txt']) {
      const answer = await rawGet(host.port, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toContain('outside the renderer');
    }
  });

  it('refuses HTTP requests whose Host is not this loopback host', async () => {
    expect((await rawGet(host.port, '/', { Host: `evil.example:${host.port}` })).status).toBe(403);
    expect((await rawGet(host.port, `/?token=${host.token}`, { Host: `localhost:${host.port}` })).status).toBe(200);
  });

  it('refuses a socket with a bad or missing token', async () => {
    expect((await connect(apiUrl('wrong'))).status).toBe(401);
    expect((await connect(`ws://127.0.0.1:${host.port}/api`)).status).toBe(401);
  });

  it('refuses a socket with a foreign Host or Origin', async () => {
    expect((await connect(apiUrl(host.token), { Host: `attacker.example:${host.port}` })).status).toBe(403);
    expect((await connect(apiUrl(host.token), { Origin: 'http://attacker.example' })).status).toBe(403);
  });

  it('refuses unknown methods and invalid inputs without calling a handler', async () => {
    const { socket } = await connect(apiUrl(host.token), { Origin: `http://127.0.0.1:${host.port}` });
    expect(socket).toBeDefined();
    socket!.send(JSON.stringify({ id: 1, method: 'constructor', input: {} }));
    expect(await nextMessage(socket!)).toMatchObject({ id: 1, ok: false, error: { code: 'unknown_method' } });
    socket!.send(JSON.stringify({ id: 2, method: 'startMove', input: { sessionId: '' } }));
    expect(await nextMessage(socket!)).toMatchObject({ id: 2, ok: false, error: { code: 'validation_failed' } });
    socket!.send(JSON.stringify({ id: 3, method: 'getStatus', input: { extra: true } }));
    expect(await nextMessage(socket!)).toMatchObject({ id: 3, ok: false, error: { code: 'validation_failed' } });
    socket!.send('not json');
    expect(await nextMessage(socket!)).toMatchObject({ ok: false, error: { code: 'invalid_message' } });
    expect(calls).toEqual([]);
    socket!.close();
  });

  it('calls the handler with the validated input and answers with the same id', async () => {
    const { socket } = await connect(apiUrl(host.token));
    socket!.send(JSON.stringify({ id: 7, method: 'startMove', input: { sessionId: 's1', targetDeviceId: 'd2' } }));
    const reply = (await nextMessage(socket!)) as BridgeResponse;
    expect(reply).toEqual({ id: 7, ok: true, result: { answeredBy: 'startMove' } });
    expect(calls).toEqual([{ method: 'startMove', input: { sessionId: 's1', targetDeviceId: 'd2' } }]);
    socket!.close();
  });

  it('pushes device events to every open socket', async () => {
    const { socket } = await connect(apiUrl(host.token));
    const message = nextMessage(socket!);
    emit('devicesChanged', []);
    expect(await message).toEqual({ event: 'devicesChanged', payload: [] });
    socket!.close();
  });
});
