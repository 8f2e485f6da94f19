/** The node:http transport behaves like fetch for what the client uses. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodeHttpExchange, nodeHttpFetch } from './http-transport.ts';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        return;
      }
      if (req.url === '/slow') return;
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': req.headers['x-test'] ?? '' });
      res.end(JSON.stringify({ method: req.method, path: req.url, body: Buffer.concat(chunks).toString() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

it('sends method, path, query, headers and body, and returns status, headers and body', async () => {
  const response = await nodeHttpFetch(`${base}/x?a=1`, { method: 'POST', headers: { 'x-test': 'yes' }, body: Buffer.from('hello') });
  expect([response.status, response.headers.get('x-echo')]).toEqual([201, 'yes']);
  expect(await response.json()).toEqual({ method: 'POST', path: '/x?a=1', body: 'hello' });
});

it('streams an event-stream body as it arrives and stops on abort', async () => {
  const controller = new AbortController();
  const response = await nodeHttpFetch(`${base}/stream`, { signal: controller.signal });
  const reader = response.body!.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
  controller.abort();
  await expect(reader.read()).rejects.toBeDefined();
});

it('rejects on abort before an answer and when nothing listens', async () => {
  await expect(nodeHttpFetch(`${base}/slow`, { signal: AbortSignal.timeout(50) })).rejects.toBeDefined();
  await expect(nodeHttpFetch('http://127.0.0.1:9/none')).rejects.toThrow(/fetch failed/);
});

it('exchanges a buffered request: method, path, headers and body out, status and body back', async () => {
  const answer = await nodeHttpExchange(`${base}/x?a=1`, {
    method: 'PUT',
    headers: { 'x-test': 'yes' },
    body: Buffer.from('hello'),
    timeoutMs: 5000,
  });
  expect(answer.status).toBe(201);
  expect(JSON.parse(answer.body.toString())).toEqual({ method: 'PUT', path: '/x?a=1', body: 'hello' });
});

it('rejects an exchange that gets no answer in time, and one nothing listens for', async () => {
  await expect(nodeHttpExchange(`${base}/slow`, { method: 'GET', headers: {}, timeoutMs: 50 })).rejects.toThrow(/fetch failed: .*50 ms/);
  await expect(nodeHttpExchange('http://127.0.0.1:9/none', { method: 'GET', headers: {}, timeoutMs: 5000 })).rejects.toThrow(
    /fetch failed/,
  );
});

it('keeps open event streams off the request pool: a call still answers with 80 streams held open', async () => {
  const controllers = Array.from({ length: 80 }, () => new AbortController());
  const streams = await Promise.all(
    controllers.map((c) => nodeHttpFetch(`${base}/stream`, { signal: c.signal, headers: { accept: 'text/event-stream' } })),
  );
  try {
    expect(streams.every((s) => s.status === 200)).toBe(true);
    const answer = await nodeHttpExchange(`${base}/x`, { method: 'GET', headers: {}, timeoutMs: 2000 });
    expect(answer.status).toBe(201);
  } finally {
    controllers.forEach((c) => c.abort());
  }
});
