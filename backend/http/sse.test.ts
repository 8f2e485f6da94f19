/** The push stream over real HTTP: hello first, keep-alive comments, one JSON message per event. */
import { expect, it } from 'vitest';
import { startBackend } from '../backend.ts';
import { createTestAccount, newId, newTestDevice, opaque } from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage } from '../../dev-env/store-kinds.ts';

it.each(STORE_KINDS)(
  'on the %s store, ' +
    'opens with hello, sends keep-alive comments, writes each change as one data line and lets go when the client leaves',
  async (kind) => {
    const storage = await testStorage(kind, 'baton-sse');
    const backend = await startBackend({ ...storage.options, streamHeartbeatMs: 30 });
    const controller = new AbortController();
    try {
      const device = newTestDevice(backend.url, 'laptop');
      await createTestAccount(device);
      const response = await device.client.signedFetch('GET', '/v1/stream', { signal: controller.signal });
      expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
      const reader = response.body!.getReader();
      let text = '';
      const readUntil = async (pattern: RegExp) => {
        while (!pattern.test(text)) text += new TextDecoder().decode((await reader.read()).value);
      };
      await readUntil(/: keep-alive\n\n/);
      expect(text).toMatch(new RegExp(`^retry: 1000\\n\\nid: [A-Za-z0-9-]+:\\d+\\ndata: \\{"type":"hello","deviceId":"${device.id}"`));
      const sessionId = newId();
      await device.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } });
      await readUntil(new RegExp(`data: .*"${sessionId}".*\\n\\n`));
      const line = text.split('\n').find((l) => l.includes(sessionId))!;
      expect(JSON.parse(line.slice('data: '.length))).toMatchObject({ type: 'session', session: { id: sessionId, generation: 1 } });
      expect(backend.push.size).toBe(1);
      controller.abort();
      await expect.poll(() => backend.push.size, { timeout: 2000 }).toBe(0);
    } finally {
      controller.abort();
      await backend.close();
      storage.cleanup();
    }
  },
);
