/**
 * The relay's hold (the fault matrix's network cut where no network namespace can be made): while
 * held nothing passes either way and a new connection reaches nothing; on release everything held
 * is delivered, as TCP does once a partition heals.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpRelay, type TcpRelay } from './tcp-relay.ts';

let echo: Server;
let echoUrl: string;
let reached = 0;
let relay: TcpRelay;
const clients: Socket[] = [];

beforeAll(async () => {
  echo = createServer((socket) => {
    reached += 1;
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as { port: number }).port}`;
  relay = await startTcpRelay(echoUrl);
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await relay.down();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

/** A client of the relay and everything it has received so far. */
async function client(): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect({ host: '127.0.0.1', port: relay.port });
  clients.push(socket);
  let got = '';
  socket.on('data', (chunk: Buffer) => (got += chunk.toString()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, received: () => got };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !probe(); i++) await pause(20);
}

describe('a relay that holds its traffic', () => {
  it('passes nothing either way while held, and delivers it all on release', async () => {
    const open = await client();
    open.socket.write('before ');
    await eventually(() => open.received() === 'before ');
    expect(open.received()).toBe('before ');

    relay.hold();
    open.socket.write('during');
    const reachedBefore = reached;
    const late = await client();
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
