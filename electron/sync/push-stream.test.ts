/** The push-stream client: SSE parsing, message validation, reconnection after the backend restarts. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBackend } from '../../backend/backend.ts';
import type { PushMessage } from '../../shared/api/push.ts';
import { createBackendClient } from './backend-client.ts';
import { openPushStream, parseSseChunk } from './push-stream.ts';
import { createTestAccount, newId, newTestDevice, opaque } from '../../dev-env/sync-fixtures.ts';

describe('the push stream client', () => {
  it('splits events, joins multi-line data, skips comments and keeps an unfinished tail', () => {
    expect(parseSseChunk(': keep-alive\n\ndata: {"a":1}\n\nretry: 5\n\ndata: x\ndata: y\r\n\r\ndata: {"par')).toEqual({
      events: ['{"a":1}', 'x\ny'],
      rest: 'data: {"par',
    });
  });

  it('ignores an invalid message, reporting it, and delivers the valid ones', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"handoff","handoff":{"id":"nope"}}\n\n');
      res.write(`data: ${JSON.stringify({ type: 'memory', topic: 't' })}\n\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const device = newTestDevice(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'x');
    const messages: PushMessage[] = [];
    const errors: string[] = [];
    const close = openPushStream(device.client, (m) => messages.push(m), { onError: (e) => errors.push(e.code) });
    try {
      await expect.poll(() => messages, { timeout: 2000 }).toEqual([{ type: 'memory', topic: 't' }]);
      expect(errors).toContain('bad_message');
    } finally {
      close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('reconnects with backoff after the backend restarts and receives changes again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'baton-push-'));
    let backend = await startBackend({ dataDir });
    const port = backend.port;
    const device = newTestDevice(backend.url, 'laptop');
    await createTestAccount(device);
    const client = createBackendClient({ baseUrl: backend.url, signer: device.signer });
    const sessions: string[] = [];
    let opens = 0;
    const close = openPushStream(
      client,
      (m) => m.type === 'session' && sessions.push(m.session.id),
      { onOpen: () => opens++ },
      { initialBackoffMs: 20, maxBackoffMs: 100 },
    );
    try {
      await expect.poll(() => opens, { timeout: 2000 }).toBe(1);
      await backend.close();
      backend = await startBackend({ dataDir, port });
      await expect.poll(() => opens, { timeout: 3000 }).toBe(2);
      const sessionId = newId();
      expect((await client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
      await expect.poll(() => sessions, { timeout: 2000 }).toEqual([sessionId]);
    } finally {
      close();
      await backend.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
