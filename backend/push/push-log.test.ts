/** The one-instance push log and a stream's cursor in it: positions, replay, what is too old to replay. */
import { describe, expect, it } from 'vitest';
import { PushHub } from './push-hub.ts';
import { MemoryPushLog } from './push-log.ts';
import { parseStreamPosition, StreamCursor } from './stream-cursor.ts';

describe('the memory push log', () => {
  it('gives each message the next position, delivers it with it, and replays an account from a position', async () => {
    const hub = new PushHub();
    const log = new MemoryPushLog(hub);
    hub.attachLog(log);
    const got: (number | undefined)[] = [];
    hub.subscribe('A', { deviceId: 'd', send: (_m, _json, position) => got.push(position), close() {} });
    for (const topic of ['1', '2', '3']) hub.publish(topic === '2' ? 'B' : 'A', { type: 'memory', topic });
    expect([got, log.floor()]).toEqual([[1, 3], 3]);
    expect((await log.since('A', 0)) as unknown).toEqual([
      { id: 1, json: '{"type":"memory","topic":"1"}' },
      { id: 3, json: '{"type":"memory","topic":"3"}' },
    ]);
    expect(await log.since('A', 3)).toEqual([]);
  });

  it('answers too_old for a position below what it forgot, by capacity or by age', async () => {
    let now = 0;
    const hub = new PushHub();
    const log = new MemoryPushLog(hub, { capacity: 2, retentionMs: 1000, clock: () => now });
    hub.attachLog(log);
    for (let i = 0; i < 3; i++) hub.publish('A', { type: 'memory', topic: String(i) });
    expect([await log.since('A', 0), (await log.since('A', 1)) as unknown[]]).toEqual(['too_old', expect.any(Array)]);
    now = 5000;
    hub.publish('A', { type: 'memory', topic: 'new' });
    now = 5500;
    await log.prune();
    expect([await log.since('A', 2), await log.since('A', 3)]).toEqual(['too_old', [{ id: 4, json: '{"type":"memory","topic":"new"}' }]]);
  });
});

describe('a stream cursor', () => {
  it('admits each position once, keeps those above its floor in its id, and reads that id back', () => {
    const cursor = new StreamCursor(10);
    expect([cursor.admit(12), cursor.admit(12), cursor.admit(9), cursor.admit(11)]).toEqual([true, false, false, true]);
    expect(cursor.format('log')).toBe('log:10.11.12');
    cursor.raise(11);
    expect(cursor.format('log')).toBe('log:11.12');
    expect(parseStreamPosition('log:11.12')).toEqual({ logId: 'log', floor: 11, seen: [12] });
    const resumed = new StreamCursor(11, [12]);
    expect([resumed.admit(12), resumed.admit(13)]).toEqual([false, true]);
  });

  it('ignores a Last-Event-ID that is not one of its ids', () => {
    for (const text of [undefined, '', 'log', 'log:x', 'a b:1', `log:1${'.2'.repeat(300)}`, ['log:1', 'log:2']])
      expect(parseStreamPosition(text)).toBeUndefined();
  });
});
