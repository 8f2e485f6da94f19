/** The push hub: per-account fan-out, device disconnects, unsubscribe. */
import { expect, it } from 'vitest';
import type { PushMessage } from '../../shared/api/push.ts';
import { PushHub } from './push-hub.ts';

it("delivers a message to every stream of its account only, and closes a revoked device's streams", () => {
  const hub = new PushHub();
  const got: Record<string, PushMessage[]> = { a1: [], a2: [], b1: [] };
  const closed: string[] = [];
  const sub = (account: string, device: string, name: string) => {
    const unsubscribe = hub.subscribe(account, {
      deviceId: device,
      send: (m, json) => (expect(JSON.parse(json)).toEqual(m), got[name]!.push(m)),
      close: () => (closed.push(name), unsubscribe()),
    });
    return unsubscribe;
  };
  sub('A', 'd1', 'a1');
  const leave = sub('A', 'd2', 'a2');
  sub('B', 'd3', 'b1');
  hub.publish('A', { type: 'memory', topic: 't' });
  expect([got.a1!.length, got.a2!.length, got.b1!.length]).toEqual([1, 1, 0]);
  leave();
  hub.publish('A', { type: 'memory', topic: 'u' });
  expect([got.a1!.length, got.a2!.length]).toEqual([2, 1]);
  hub.disconnectDevice('A', 'd1');
  expect(closed).toEqual(['a1']);
  hub.closeAll();
  expect(closed).toEqual(['a1', 'b1']);
  expect(hub.size).toBe(0);
});
