/**
 * A TCP relay on 127.0.0.1 in front of a backend: one more address of the same backend, as a
 * second instance on one database or a load balancer's would be. A test takes it down (it refuses
 * connections and cuts the open ones, as a killed instance does), brings it back on the same port,
 * makes it lose answers (the request reaches the backend, the reply never comes back), holds its
 * traffic (nothing passes either way and new connections wait, as on a network partition; on
 * release everything held flows on, as TCP delivers it once the network is back), or shapes it as a
 * slow, lossy link (slow-link.ts: a delay each way, a bandwidth cap, loss as the retransmission
 * delays it causes). The bytes pass untouched, so TLS runs end to end through it.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { SlowLink, type Lane, type LinkConditions } from './slow-link.ts';

export type { LinkConditions } from './slow-link.ts';

/** One delivery of bytes across the relay. */
export interface Delivery {
  /** The connection, numbered from 1 in the order accepted. */
  connection: number;
  direction: 'up' | 'down';
  bytes: number;
  /** `performance.now()` of the delivery. */
  at: number;
}

export interface TcpRelay {
  /** `http://127.0.0.1:PORT` (https for an https target: TLS passes through untouched), the address devices are given. */
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Bytes relayed so far, each way (up: to the target). */
  readonly bytes: { up: number; down: number };
  /** Exchanges so far: a connection sending after it last received (or first), as each request does. */
  readonly exchanges: number;
  /** Told of each delivery (after the link's delay): which connection, which way, how many bytes (0: its end). */
  onDelivery: ((delivery: Delivery) => void) | null;
  /** While true, requests still reach the backend but each connection is cut as its answer starts. */
  loseAnswers: boolean;
  /** Holds every byte both ways and every new connection until `release`. */
  hold(): void;
  release(): void;
  /** Makes the relay a slow, lossy link (slow-link.ts) from now on; null: a plain relay again. */
  shape(conditions: LinkConditions | null): void;
  readonly conditions: LinkConditions | null;
  /** Stops listening and cuts every open connection. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
}

/** Starts a relay to `target` (`http(s)://HOST:PORT`, or `git://…`) on a free port of 127.0.0.1. */
export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const { hostname, port: targetPort, protocol } = new URL(target);
  const link = new SlowLink();
  const sockets = new Set<Socket>();
  const lanes = new Set<Lane>();
  /** How each relayed socket goes on reading after a release (unless its lane still holds enough). */
  const readers = new Map<Socket, () => void>();
  const bytes = { up: 0, down: 0 };
  let accepted = 0;
  let exchanges = 0;
  let server: Server | null = null;
  let port = 0;
  const waiting: { client: Socket; at: number; connection: number }[] = [];

  const accept = (client: Socket) => {
    const connection = ++accepted;
    if (!link.held) return relay(client, performance.now(), connection);
    // Held: the connection is open but nothing reaches the backend until the release.
    client.pause();
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    waiting.push({ client, at: performance.now(), connection });
  };

  const relay = (client: Socket, openedAt: number, connection: number) => {
    // Nagle off both sides: the lane hands over a segment at a time as the wire delivers it, and with
    // Nagle each one after the first would wait on loopback for the last one's delayed ACK (~40 ms),
    // a stall a wire does not make. A held connection comes here too, on its release.
    const upstream = connect({ host: hostname, port: Number(targetPort), allowHalfOpen: true, noDelay: true });
    client.setNoDelay(true);
    sockets.add(client).add(upstream);
    // Reading stops while the link is held or a lane holds enough of this side's bytes.
    const stopped = new Map<Socket, boolean>([
      [client, false],
      [upstream, false],
    ]);
    const reading = (socket: Socket) => (link.held || stopped.get(socket) ? socket.pause() : socket.resume());
    readers.set(client, () => reading(client)).set(upstream, () => reading(upstream));
    const told = (direction: 'up' | 'down', bytes: number) => handle.onDelivery?.({ connection, direction, bytes, at: performance.now() });
    const ends = (to: Socket, from: Socket) => ({
      write: (chunk: Buffer) => {
        told(to === upstream ? 'up' : 'down', chunk.length);
        to.write(chunk);
      },
      end: () => {
        told(to === upstream ? 'up' : 'down', 0);
        to.end();
      },
      backpressure: (stop: boolean) => {
        stopped.set(from, stop);
        reading(from);
      },
    });
    const up = link.lane('up', ends(upstream, client), link.handshakeDone(openedAt));
    const down = link.lane('down', ends(client, upstream));
    lanes.add(up).add(down);
    let lastDown = true;
    const cut = () => {
      up.close();
      down.close();
      lanes.delete(up);
      lanes.delete(down);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => sockets.delete(client) && readers.delete(client));
    upstream.on('close', () => sockets.delete(upstream) && readers.delete(upstream));
    client.on('error', cut);
    upstream.on('error', cut);
    client.on('close', cut);
    upstream.on('close', cut);
    client.on('end', () => up.send(null));
    upstream.on('end', () => down.send(null));
    client.on('data', (chunk: Buffer) => {
      if (lastDown) exchanges++;
      lastDown = false;
      bytes.up += chunk.length;
      up.send(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (handle.loseAnswers) return cut();
      lastDown = true;
      bytes.down += chunk.length;
      down.send(chunk);
    });
    reading(client);
    reading(upstream);
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const made = createServer({ allowHalfOpen: true }, accept);
      made.once('error', reject);
      made.listen(port, '127.0.0.1', () => {
        port = (made.address() as { port: number }).port;
        server = made;
        resolve();
      });
    });

  await listen();
  const handle: TcpRelay = {
    get url() {
      return `${protocol}//127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    get accepted() {
      return accepted;
    },
    get bytes() {
      return { ...bytes };
    },
    get exchanges() {
      return exchanges;
    },
    loseAnswers: false,
    onDelivery: null,
    hold() {
      link.hold();
      for (const socket of sockets) socket.pause();
    },
    release() {
      link.release();
      for (const socket of sockets) (readers.get(socket) ?? (() => socket.resume()))();
      for (const { client, at, connection } of waiting.splice(0)) if (!client.destroyed) relay(client, at, connection);
    },
    shape(conditions) {
      link.set(conditions);
    },
    get conditions() {
      return link.current;
    },
    async down() {
      const closing = server;
      server = null;
      for (const lane of lanes) lane.close();
      lanes.clear();
      for (const socket of sockets) socket.destroy();
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    async up() {
      if (!server) await listen();
    },
  };
  return handle;
}
