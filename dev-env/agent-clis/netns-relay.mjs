// Runs as the first process of a loopback-only network namespace (loopback-netns.ts starts it):
// - relays TCP 127.0.0.1:<port> inside the namespace to the scripted model server's Unix socket
//   outside it, so the CLIs reach the server at the same URL and nothing else;
// - answers DNS on 127.0.0.1:53 (the namespace's resolv.conf points there) with NXDOMAIN and reports
//   every name asked, so a test can tell that a CLI tried to reach no other host.
// Reports on stdout, one JSON object a line: {"ready":true,"dnsLogging":<resolv.conf points here>},
// {"dns":"<name>"}. Exits when stdin closes
// (its parent went away). Usage: node netns-relay.mjs <port> <socket path>
import { Buffer } from 'node:buffer';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import net from 'node:net';

const [port, socketPath] = process.argv.slice(2);
const report = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

const relay = net.createServer((client) => {
  const server = net.connect(socketPath);
  client.pipe(server).pipe(client);
  const end = () => {
    client.destroy();
    server.destroy();
  };
  client.on('error', end);
  server.on('error', end);
});

/** The query name of a DNS message (labels from byte 12 up to the zero byte), and where the question ends. */
function question(message) {
  const labels = [];
  let at = 12;
  while (at < message.length && message[at] !== 0) {
    const length = message[at];
    labels.push(message.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += length + 1;
  }
  return { name: labels.join('.'), end: at + 5 };
}

const dns = dgram.createSocket('udp4');
dns.on('message', (message, from) => {
  if (message.length < 17) return;
  const { name, end } = question(message);
  report({ dns: name });
  const reply = Buffer.from(message.subarray(0, Math.min(end, message.length)));
  reply[2] = 0x81; // a response, recursion desired
  reply[3] = 0x83; // recursion available, NXDOMAIN
  reply.writeUInt16BE(0, 6);
  reply.writeUInt16BE(0, 8);
  reply.writeUInt16BE(0, 10);
  dns.send(reply, from.port, from.address);
});

let listening = 0;
const ready = () => {
  listening += 1;
  if (listening < 2) return;
  let resolver = null;
  try {
    resolver = /^nameserver\s+(\S+)/m.exec(readFileSync('/etc/resolv.conf', 'utf8'))?.[1];
  } catch {
    // no resolv.conf: nothing resolves at all
  }
  report({ ready: true, dnsLogging: resolver === '127.0.0.1' });
};
relay.listen(Number(port), '127.0.0.1', ready);
dns.bind(53, '127.0.0.1', ready);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
