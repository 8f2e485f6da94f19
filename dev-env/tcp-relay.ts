/**
 * A TCP relay on 127.0.0.1 in front of a backend: one more address of the same backend, as a
 * second instance on one database or a load balancer's would be. A test takes it down (it refuses
 * connections and cuts the open ones, as a killed instance does), brings it back on the same port,
 * makes it lose answers (the request reaches the backend, the reply never comes back), or holds
 * its traffic (nothing passes either way and new connections wait, as on a network partition; on
 * release everything held flows on, as TCP delivers it once the network is back).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpRelay {
  /** `http://127.0.0.1:PORT` (https for an https target: TLS passes through untouched), the address devices are given. */
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** While true, requests still reach the backend but each connection is cut as its answer starts. */
  loseAnswers: boolean;
  /** Holds every byte both ways and every new connection until `release`. */
  hold(): void;
  release(): void;
  /** Stops listening and cuts every open connection. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
}

/** Starts a relay to `target` (`http(s)://HOST:PORT`) on a free port of 127.0.0.1. */
export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const { hostname, port: targetPort, protocol } = new URL(target);
  const sockets = new Set<Socket>();
  let accepted = 0;
  let server: Server | null = null;
  let port = 0;
  let held = false;
  const waiting: Socket[] = [];

  const accept = (client: Socket) => {
    accepted++;
    if (!held) return relay(client);
    // Held: the connection is open but nothing reaches the backend until the release.
    client.pause();
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    waiting.push(client);
  };

  const relay = (client: Socket) => {
    const upstream = connect({ host: hostname, port: Number(targetPort) });
    sockets.add(client).add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    client.on('error', cut);
    upstream.on('error', cut);
    client.on('end', cut);
    upstream.on('end', cut);
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (handle.loseAnswers) cut();
      else client.write(chunk);
    });
    client.resume();
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const made = createServer(accept);
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
    loseAnswers: false,
    hold() {
      held = true;
      for (const socket of sockets) socket.pause();
    },
    release() {
      held = false;
      for (const socket of sockets) socket.resume();
      for (const client of waiting.splice(0)) if (!client.destroyed) relay(client);
    },
    async down() {
      const closing = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    async up() {
      if (!server) await listen();
    },
  };
  return handle;
}
