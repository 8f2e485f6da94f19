/**
 * The relay's hold (the fault matrix's network cut where no network namespace can be made): while
 * held nothing passes either way and a new connection reaches nothing; on release everything held
 * is delivered, as TCP does once a partition heals. And the relay as a slow link (slow-link.ts): the
 * delay it adds each way and to a new connection's handshake, its bandwidth cap, and loss as the
 * retransmission delays it causes, every byte still delivered in order — measured on an echo server;
 * and a many-segment body as fast as the wire carries it, no segment held back for an acknowledgement.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTcpRelay, type TcpRelay } from './tcp-relay.ts';

let echo: Server;
let echoUrl: string;
let reached = 0;
const relays: TcpRelay[] = [];
const clients: Socket[] = [];

beforeAll(async () => {
  echo = createServer((socket) => {
    reached += 1;
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as { port: number }).port}`;
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(relays.splice(0).map((relay) => relay.down()));
});

afterAll(async () => {
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

async function relayToEcho(): Promise<TcpRelay> {
  const relay = await startTcpRelay(echoUrl);
  relays.push(relay);
  return relay;
}

/** A client of the relay and everything it has received so far. */
async function client(relay: TcpRelay): Promise<{ socket: Socket; received: () => string; bytes: () => Buffer }> {
  const socket = connect({ host: '127.0.0.1', port: relay.port });
  clients.push(socket);
  const got: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => got.push(chunk));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const bytes = () => Buffer.concat(got);
  return { socket, received: () => bytes().toString(), bytes };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(probe: () => boolean, ms = 2000): Promise<void> {
  for (const end = Date.now() + ms; !probe() && Date.now() < end;) await pause(5);
}

/** `count` round trips of `label` and a number on `c`, in milliseconds each (roundTrip). */
async function roundTrips(c: Awaited<ReturnType<typeof client>>, label: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push(await roundTrip(c, `${label} ${i};`));
  return times;
}

/** Milliseconds from writing `text` until the echo of all of it (and what came back) has arrived. */
async function roundTrip(c: Awaited<ReturnType<typeof client>>, text: string, ms = 5000): Promise<number> {
  const before = c.received().length;
  const started = performance.now();
  c.socket.write(text);
  await eventually(() => c.received().length >= before + text.length, ms);
  expect(c.received().slice(before)).toBe(text);
  return performance.now() - started;
}

describe('a relay that holds its traffic', () => {
  it('passes nothing either way while held, and delivers it all on release', async () => {
    const relay = await relayToEcho();
    const open = await client(relay);
    open.socket.write('before ');
    await eventually(() => open.received() === 'before ');
    expect(open.received()).toBe('before ');

    relay.hold();
    open.socket.write('during');
    const reachedBefore = reached;
    const late = await client(relay);
    late.socket.write('new connection');
    await pause(300);
    expect(open.received()).toBe('before ');
    expect(late.received()).toBe('');
    expect(reached).toBe(reachedBefore);

    relay.release();
    await eventually(() => open.received() === 'before during' && late.received() === 'new connection');
    expect(open.received()).toBe('before during');
    expect(late.received()).toBe('new connection');
    expect(reached).toBe(reachedBefore + 1);
  });
});

describe('a relay shaped as a slow link', () => {
  it('adds its delay each way to an open connection, and to a new one its handshake too', async () => {
    const delayMs = 40;
    const relay = await relayToEcho();
    const open = await client(relay);
    // The baseline: this connection's round trips unshaped, on this machine as loaded as it is now.
    const plain = Math.min(...(await roundTrips(open, 'plain', 5)));
    relay.shape({ delayMs });
    const slow = await roundTrips(open, 'slow', 5);
    // Timers fire late on a busy machine, never early: the floor is exact.
    for (const ms of slow) expect(ms).toBeGreaterThanOrEqual(2 * delayMs - 1);
    // Once each way, not more: the quickest is nearer two delays above the baseline than four (load only adds).
    expect(Math.min(...slow) - plain).toBeLessThan(3 * delayMs);
    // A new connection: SYN and SYN-ACK, then the bytes there and back, timed from the connect (the
    // relay starts the handshake's delay when it accepts, which a busy client may hear of late).
    const connecting = performance.now();
    await roundTrip(await client(relay), 'hello');
    expect(performance.now() - connecting).toBeGreaterThanOrEqual(4 * delayMs - 1);
    relay.shape(null);
    // Unshaped again: quicker than a shaped round trip can ever be.
    expect(Math.min(...(await roundTrips(open, 'again', 3)))).toBeLessThan(2 * delayMs - 1);
  });

  it('caps the bandwidth each way, shared by its connections', async () => {
    const relay = await relayToEcho();
    relay.shape({ delayMs: 5, bitsPerSecond: 8_000_000 });
    const [a, b] = [await client(relay), await client(relay)];
    // 2 × 256 KiB up and back at 8 Mbit/s a direction: 0.52 s of wire each way, overlapping but for the last segment.
    const body = (fill: string) => Buffer.alloc(256 * 1024, fill).toString();
    const started = performance.now();
    await Promise.all([roundTrip(a, body('a')), roundTrip(b, body('b'))]);
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(520);
    expect(ms).toBeLessThan(900);
    expect(relay.bytes).toEqual({ up: 512 * 1024, down: 512 * 1024 });
  });

  it('turns loss into retransmission delays and still delivers every byte in order', async () => {
    const relay = await relayToEcho();
    const open = await client(relay);
    relay.shape({ delayMs: 10, loss: 0.3, rtoMs: 100, seed: 7 });
    const times: number[] = [];
    for (let i = 0; i < 40; i++) times.push(await roundTrip(open, `ping ${i};`));
    // One segment each way: a round trip is 20 ms, or a retransmission timeout (or more) later.
    const late = times.filter((ms) => ms >= 20 + 99).length;
    expect(Math.min(...times)).toBeGreaterThanOrEqual(19);
    // 1 − 0.7² = 51 % of round trips lose a segment: 20 of 40 expected.
    expect(late).toBeGreaterThanOrEqual(10);
    expect(late).toBeLessThanOrEqual(30);

    // A large body through the same loss comes back whole, byte for byte.
    relay.shape({ delayMs: 2, loss: 0.3, rtoMs: 20, seed: 11 });
    const body = Buffer.from(Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));
    const before = open.bytes().length;
    open.socket.write(body);
    await eventually(() => open.bytes().length >= before + body.length, 20_000);
    expect(open.bytes().subarray(before).equals(body)).toBe(true);
  });

  it('with no loss, no round trip is late', async () => {
    const relay = await relayToEcho();
    const open = await client(relay);
    // Late is a retransmission timeout late, a second here: far more than a busy machine adds to a round trip.
    relay.shape({ delayMs: 10, loss: 0, rtoMs: 1000 });
    for (let i = 0; i < 10; i++) expect(await roundTrip(open, `ping ${i};`)).toBeLessThan(20 + 1000);
  });
});

describe('a relay shaped as a slow link, like a wire', () => {
  it('holds no segment of a many-segment write back for an acknowledgement, either way', async () => {
    // A sink that answers each 12 KB request once it has all of it with a 12 KB reply, as an HTTP server answers a body.
    const size = 12 * 1024;
    let lastRequestAt = 0;
    const accepted: Socket[] = [];
    const sink = createServer((socket) => {
      accepted.push(socket);
      let received = 0;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received % size !== 0) return;
        lastRequestAt = performance.now();
        socket.write(Buffer.alloc(size, 'r'));
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    try {
      const relay = await startTcpRelay(`http://127.0.0.1:${(sink.address() as { port: number }).port}`);
      relays.push(relay);
      relay.shape({ delayMs: 25, bitsPerSecond: 20_000_000 });
      // When the relay last handed bytes over, by connection (numbered as accepted) and direction.
      const handedOver = new Map<string, number>();
      relay.onDelivery = ({ connection, direction, bytes, at }) => void (bytes > 0 && handedOver.set(`${connection} ${direction}`, at));
      const open = await client(relay);
      // A connection accepted while the relay held its traffic is relayed on the release.
      relay.hold();
      const held = await client(relay);
      relay.release();
      for (const [connection, c] of [open, held].entries()) {
        c.socket.setNoDelay(true);
        let lastReplyAt = 0;
        c.socket.on('data', () => (lastReplyAt = performance.now()));
        /** One exchange: how long each way took, and how long the last bytes the relay handed over took to arrive. */
        const exchange = async () => {
          const before = c.bytes().length;
          const started = performance.now();
          c.socket.write(Buffer.alloc(size, 'q'));
          await eventually(() => c.bytes().length >= before + size);
          const handed = (direction: string) => handedOver.get(`${connection + 1} ${direction}`)!;
          return {
            ways: [lastRequestAt - started, lastReplyAt - lastRequestAt],
            arrivals: [lastRequestAt - handed('up'), lastReplyAt - handed('down')],
          };
        };
        // Warm: after an exchange both ends acknowledge late (delayed ACKs), as on a connection in use.
        await exchange();
        const exchanges = [await exchange(), await exchange(), await exchange()];
        // Nine 1448-byte segments 0.58 ms apart at 20 Mbit/s: 25 ms + 5 ms of wire each way (timers never fire early).
        for (const { ways } of exchanges) for (const ms of ways) expect(ms).toBeGreaterThanOrEqual(25 + 4);
        // What the relay hands over arrives at once, each way: a segment held back for the other end's
        // delayed ACK would arrive ~40 ms after it (the kernel's delayed-ACK timer). A busy machine may
        // delay a reading, so the quickest of the exchanges is the one that tells.
        for (const way of [0, 1]) expect(Math.min(...exchanges.map((e) => e.arrivals[way]!))).toBeLessThan(20);
      }
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => sink.close(() => resolve()));
    }
  });
});
