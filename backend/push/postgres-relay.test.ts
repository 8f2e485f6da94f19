/**
 * Push between instances on one PostgreSQL database: the gap-aware cursor, delivery from one
 * instance's hub to another's in publish order and exactly once, and the catch-up read after the
 * LISTEN connection is cut. Real PostgreSQL (the run's throwaway server), hubs in this process.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushMessage } from '../../shared/api/push.ts';
import { freshDatabase, queryDatabase } from '../../dev-env/test-postgres.ts';
import { openPostgresStore, type PostgresStore } from '../store/postgres/postgres-store.ts';
import { PostgresRelay, PUSH_CHANNEL } from './postgres-relay.ts';
import { PushCursor } from './push-cursor.ts';
import { PushHub } from './push-hub.ts';

describe('the push cursor', () => {
  /** A cursor at `start` and what it delivered, in order. */
  const cursorAt = (start: number, gapTtlMs?: number) => {
    const delivered: string[] = [];
    const cursor = new PushCursor<string>(start, (id, value) => delivered.push(`${id}:${value}`), gapTtlMs);
    return { cursor, delivered };
  };

  it('holds an id taken above a gap until the gap commits, then delivers both in log order, once, and raises its floor past them', () => {
    const { cursor, delivered } = cursorAt(10);
    expect(cursor.take(12, 'later', 0)).toBe(true);
    expect(cursor.query()).toEqual({ after: 12, gaps: [11] });
    expect([cursor.floor, delivered]).toEqual([10, []]);
    expect(cursor.take(12, 'later', 1)).toBe(false);
    expect(cursor.take(11, 'earlier', 2)).toBe(true);
    expect(delivered).toEqual(['11:earlier', '12:later']);
    expect([cursor.floor, cursor.query()]).toEqual([12, { after: 12, gaps: [] }]);
    expect(cursor.take(11, 'earlier', 3)).toBe(false);
    expect(delivered).toHaveLength(2);
  });

  it('delivers each message with the floor at its own id, not past messages still to come', () => {
    const floors: number[] = [];
    const cursor: PushCursor<string> = new PushCursor(0, (id) => floors.push(id - cursor.floor));
    cursor.take(3, 'c', 0);
    cursor.take(2, 'b', 0);
    cursor.take(1, 'a', 0);
    expect(floors).toEqual([0, 0, 0]);
  });

  it('gives up a gap left open longer than its time to live (a rolled-back insert), releasing what it held back', () => {
    const { cursor, delivered } = cursorAt(0, 1000);
    cursor.take(2, 'b', 0);
    cursor.settle(500);
    expect([cursor.floor, delivered]).toEqual([0, []]);
    cursor.settle(1500);
    expect([cursor.floor, cursor.query().gaps, delivered]).toEqual([2, [], ['2:b']]);
  });
});

interface Instance {
  hub: PushHub;
  relay: PostgresRelay;
  store: PostgresStore;
  received: PushMessage[];
}

const opened: Instance[] = [];
afterEach(async () => {
  for (const instance of opened.splice(0)) {
    await instance.relay.stop();
    await instance.store.close();
  }
});

/** One instance's push side on `database`: a hub with one subscriber of account "acct", and its relay. */
async function instance(database: string, name: string, pollMs = 60_000, retentionMs?: number): Promise<Instance> {
  const store = await openPostgresStore(database, { applicationName: `test ${name}` });
  if (!store.ok) throw new Error(store.message);
  const hub = new PushHub();
  const received: PushMessage[] = [];
  hub.subscribe('acct', { deviceId: `device-${name}`, send: (message) => received.push(message), close() {} });
  const relay = new PostgresRelay({
    url: database,
    quick: store.value.quick,
    hub,
    instanceId: name,
    log: () => undefined,
    pollMs,
    retentionMs,
    applicationName: `baton-listen ${name}`,
  });
  await relay.start();
  const made = { hub, relay, store: store.value, received };
  opened.push(made);
  return made;
}

const memo = (topic: string): PushMessage => ({ type: 'memory', topic });
const topics = (messages: PushMessage[]) => messages.map((m) => (m.type === 'memory' ? m.topic : m.type));

describe('the relay between instances', () => {
  it("delivers what one instance publishes to the other's streams within milliseconds, in order, once", async () => {
    const database = await freshDatabase('baton_relay');
    const [a, b] = [await instance(database, 'a'), await instance(database, 'b')];
    const sent = Array.from({ length: 200 }, (_, i) => `m${i}`);
    const started = performance.now();
    for (const topic of sent) a.hub.publish('acct', memo(topic));
    await expect.poll(() => b.received.length, { timeout: 5000, interval: 2 }).toBe(sent.length);
    const elapsed = performance.now() - started;
    expect(topics(b.received)).toEqual(sent);
    await expect.poll(() => topics(a.received), { timeout: 5000, interval: 2 }).toEqual(sent);
    a.hub.publish('other-account', memo('elsewhere'));
    b.hub.publish('acct', memo('from b'));
    await expect.poll(() => topics(a.received).at(-1), { timeout: 5000, interval: 2 }).toBe('from b');
    await expect.poll(() => topics(b.received).filter((t) => t === 'from b'), { timeout: 5000, interval: 2 }).toHaveLength(1);
    expect(elapsed).toBeLessThan(1000);
  });

  it('holds back its own message while a lower id another instance wrote is not committed, then delivers both in log order', async () => {
    const database = await freshDatabase('baton_relay');
    const b = await instance(database, 'b');
    // Another instance's write, begun first (so its id is lower) and committed only after b's.
    const other = new pg.Client({ connectionString: database });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query("INSERT INTO push_log (origin, account_id, message) VALUES ('other', 'acct', $1)", [JSON.stringify(memo('first'))]);
      const before = b.relay.floor();
      b.hub.publish('acct', memo('second'));
      const written = async () => (await queryDatabase(database, "SELECT count(*)::int AS n FROM push_log WHERE origin = 'b'"))[0]!.n;
      await expect.poll(written, { timeout: 5000, interval: 5 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(topics(b.received)).toEqual([]);
      expect(await b.relay.since('acct', before)).toEqual([]);
      await other.query("SELECT pg_notify($1, 'other')", [PUSH_CHANNEL]);
      await other.query('COMMIT');
      await expect.poll(() => topics(b.received), { timeout: 5000, interval: 5 }).toEqual(['first', 'second']);
      const replayed = await b.relay.since('acct', before);
      expect(replayed === 'too_old' ? replayed : replayed.map((m) => JSON.parse(m.json) as PushMessage)).toEqual([
        memo('first'),
        memo('second'),
      ]);
    } finally {
      await other.end();
    }
  });

  it('catches up, by cursor, on what was published while its LISTEN connection was cut', async () => {
    const database = await freshDatabase('baton_relay');
    const [a, b] = [await instance(database, 'a'), await instance(database, 'b')];
    a.hub.publish('acct', memo('before'));
    await expect.poll(() => topics(b.received), { timeout: 5000, interval: 5 }).toEqual(['before']);
    await queryDatabase(database, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'baton-listen b'");
    await expect.poll(() => b.relay.listening, { timeout: 5000, interval: 1 }).toBe(false);
    const during = Array.from({ length: 20 }, (_, i) => `during ${i}`);
    for (const topic of during) a.hub.publish('acct', memo(topic));
    // No poll for a minute: only the catch-up read after reconnecting can deliver these.
    await expect.poll(() => b.relay.listening, { timeout: 10_000, interval: 20 }).toBe(true);
    await expect.poll(() => b.received.length, { timeout: 10_000, interval: 20 }).toBe(1 + during.length);
    expect(topics(b.received)).toEqual(['before', ...during]);
  });
});

describe('the push log as a replay', () => {
  it("gives every instance's streams the same positions, replays an account after one, and refuses one below the pruned horizon", async () => {
    const database = await freshDatabase('baton_relay');
    const [a, b] = [await instance(database, 'a', 60_000, 0), await instance(database, 'b')];
    const positions = { a: [] as number[], b: [] as number[] };
    a.hub.subscribe('acct', { deviceId: 'pa', send: (_m, _j, p) => positions.a.push(p!), close() {} });
    b.hub.subscribe('acct', { deviceId: 'pb', send: (_m, _j, p) => positions.b.push(p!), close() {} });
    const start = a.relay.floor();
    for (const topic of ['x', 'y', 'z']) a.hub.publish('acct', memo(topic));
    a.hub.publish('other', memo('elsewhere'));
    await expect.poll(() => positions.b.length, { timeout: 5000, interval: 2 }).toBe(3);
    await expect.poll(() => positions.a.length, { timeout: 5000, interval: 2 }).toBe(3);
    expect(positions.a).toEqual(positions.b);
    expect(a.relay.logId).toBe(b.relay.logId);
    const replayed = await b.relay.since('acct', positions.b[0]!);
    expect(replayed === 'too_old' ? replayed : replayed.map((m) => JSON.parse(m.json) as PushMessage)).toEqual([memo('y'), memo('z')]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await a.relay.prune();
    expect(await b.relay.since('acct', start)).toBe('too_old');
    expect(await b.relay.since('acct', b.relay.floor())).toEqual([]);
  });
});
