/**
 * A link between each device and the backend that a test can cut, slow down or make lossy, for the
 * fault matrix.
 *
 * Where the machine allows it (Linux, root, iproute2's `ip`), the backend runs in a network
 * namespace of its own (only `lo` and the links below; it listens on 0.0.0.0 there, so nothing
 * outside this machine reaches it) and each party reaches it over its own veth pair: the laptop,
 * the desktop and the test itself (the referee). A cut takes the backend's end of one pair down:
 * packets to and from that device are dropped, its connections hang and new ones get no answer, as
 * on a real partition; the restore brings the end up and TCP delivers what it was holding. Each
 * device reaches its pair through a relay of its own on 127.0.0.1 (tcp-relay.ts), which shapes it:
 * a delay, or loss as the retransmission delays it causes (netem is not available in these kernels).
 *
 * Elsewhere each device reaches the backend on 127.0.0.1 through its own relay alone, and a cut
 * holds the relay's traffic both ways. `description` says which, and why.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { findOnPath } from '../electron/providers/detect.ts';
import { startTcpRelay, type LinkConditions, type TcpRelay } from './tcp-relay.ts';

const run = promisify(execFile);
const SBIN_PATH = `${process.env.PATH ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;
/** Named namespaces made here start with this and end with the pid that made them. */
const PREFIX = 'baton-fm-';
let made = 0;

export type LinkedDevice = 'laptop' | 'desktop';
const PARTIES = ['laptop', 'desktop', 'referee'] as const;

export interface BackendLinks {
  kind: 'netns' | 'proxy';
  /** How the links are made here, for the output (and why the proxy, when it is used). */
  description: string;
  /** Where the backend listens (`--host`) and the argv prefix it is started with. */
  backendHost: string;
  backendLauncher: string[];
  /** Each device's backend address, from the address the backend announced. */
  addresses(backendUrl: string): Promise<Record<LinkedDevice, string[]>>;
  /** The address this process reaches the backend at (never cut). */
  refereeUrl(backendUrl: string): string;
  cut(device: LinkedDevice): Promise<void>;
  /** Makes the device's link slow or lossy (slow-link.ts) until `restore`. */
  shape(device: LinkedDevice, conditions: LinkConditions): void;
  /** Undoes a cut and any shaping. */
  restore(device: LinkedDevice): Promise<void>;
  close(): Promise<void>;
}

/** One relay per device, in front of the address `toward` gives it. */
async function deviceRelays(toward: (device: LinkedDevice) => string): Promise<Map<LinkedDevice, TcpRelay>> {
  const relays = new Map<LinkedDevice, TcpRelay>();
  for (const device of ['laptop', 'desktop'] as const) relays.set(device, await startTcpRelay(toward(device)));
  return relays;
}

/** Why veth links cannot be made here, or null when they can. */
async function whyNoNetns(): Promise<string | null> {
  if (process.platform !== 'linux') return `network namespaces are Linux only (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'making network namespaces and veth pairs needs root';
  if ((await findOnPath('ip', { PATH: SBIN_PATH })) === null) return "iproute2's ip is not installed";
  return null;
}

async function ip(...args: string[]): Promise<string> {
  const { stdout } = await run('ip', args, { env: { ...process.env, PATH: SBIN_PATH } });
  return stdout;
}

/** Removes namespaces an earlier run of this harness left behind (its process is gone). */
async function removeStale(): Promise<void> {
  if (!existsSync('/run/netns')) return;
  for (const name of readdirSync('/run/netns')) {
    const pid = Number(name.split('-').at(-1));
    if (!name.startsWith(PREFIX) || !Number.isInteger(pid) || existsSync(`/proc/${pid}`)) continue;
    await ip('netns', 'del', name).catch(() => undefined);
  }
}

/** A /24 of 10.231.0.0/16 that no interface of this machine uses. */
async function freeSubnet(): Promise<string> {
  const used = await ip('-o', '-4', 'addr', 'show');
  for (let tries = 0; tries < 50; tries++) {
    const net = `10.231.${Math.floor(Math.random() * 254) + 1}`;
    if (!used.includes(`${net}.`)) return net;
  }
  throw new Error('no free 10.231.x.0/24 for the backend links');
}

async function netnsLinks(): Promise<BackendLinks> {
  await removeStale();
  made += 1;
  const ns = `${PREFIX}${made}-${process.pid}`;
  const net = await freeSubnet();
  const tag = `${process.pid.toString(36).slice(-5)}${made % 100}`;
  // Party i: this side 10.231.x.(4i+1), the backend's side .(4i+2), a /30 each.
  const link = (i: number) => ({
    host: `fm${tag}${i}h`,
    backend: `fm${tag}${i}b`,
    hostIp: `${net}.${4 * i + 1}`,
    backendIp: `${net}.${4 * i + 2}`,
  });
  await ip('netns', 'add', ns);
  try {
    await ip('-n', ns, 'link', 'set', 'lo', 'up');
    for (const [i] of PARTIES.entries()) {
      const l = link(i);
      await ip('link', 'add', l.host, 'type', 'veth', 'peer', 'name', l.backend, 'netns', ns);
      await ip('addr', 'add', `${l.hostIp}/30`, 'dev', l.host);
      await ip('link', 'set', l.host, 'up');
      await ip('-n', ns, 'addr', 'add', `${l.backendIp}/30`, 'dev', l.backend);
      await ip('-n', ns, 'link', 'set', l.backend, 'up');
    }
  } catch (error) {
    await ip('netns', 'del', ns).catch(() => undefined);
    throw error;
  }
  const at = (i: number, backendUrl: string) => `http://${link(i).backendIp}:${new URL(backendUrl).port}`;
  const index = (device: LinkedDevice) => PARTIES.indexOf(device);
  let relays = new Map<LinkedDevice, TcpRelay>();
  return {
    kind: 'netns',
    description: `network namespace ${ns}: the backend behind one veth pair per device (${net}.0/24), reached through a relay that shapes it; a cut takes the backend's end down`,
    backendHost: '0.0.0.0',
    backendLauncher: ['ip', 'netns', 'exec', ns],
    async addresses(backendUrl) {
      relays = await deviceRelays((device) => at(index(device), backendUrl));
      return { laptop: [relays.get('laptop')!.url], desktop: [relays.get('desktop')!.url] };
    },
    refereeUrl: (backendUrl) => at(2, backendUrl),
    cut: async (device) => void (await ip('-n', ns, 'link', 'set', link(index(device)).backend, 'down')),
    shape: (device, conditions) => relays.get(device)?.shape(conditions),
    async restore(device) {
      relays.get(device)?.shape(null);
      await ip('-n', ns, 'link', 'set', link(index(device)).backend, 'up');
    },
    async close() {
      await Promise.all([...relays.values()].map((relay) => relay.down()));
      await ip('netns', 'del', ns).catch(() => '');
    },
  };
}

async function proxyLinks(why: string): Promise<BackendLinks> {
  let relays = new Map<LinkedDevice, TcpRelay>();
  return {
    kind: 'proxy',
    description: `loopback proxy: one relay per device on 127.0.0.1 whose traffic a cut holds and which shapes it (no network namespaces: ${why})`,
    backendHost: '127.0.0.1',
    backendLauncher: [],
    async addresses(backendUrl) {
      relays = await deviceRelays(() => backendUrl);
      return { laptop: [relays.get('laptop')!.url], desktop: [relays.get('desktop')!.url] };
    },
    refereeUrl: (backendUrl) => backendUrl,
    cut: async (device) => relays.get(device)?.hold(),
    shape: (device, conditions) => relays.get(device)?.shape(conditions),
    async restore(device) {
      relays.get(device)?.shape(null);
      relays.get(device)?.release();
    },
    close: async () => void (await Promise.all([...relays.values()].map((relay) => relay.down()))),
  };
}

/**
 * Makes the links: veth pairs into the backend's namespace where this machine allows it, else
 * loopback relays (`BATON_FAULT_LINKS=proxy` asks for the relays anywhere).
 */
export async function makeBackendLinks(): Promise<BackendLinks> {
  const why = process.env.BATON_FAULT_LINKS === 'proxy' ? 'BATON_FAULT_LINKS=proxy' : await whyNoNetns();
  if (why !== null) return proxyLinks(why);
  try {
    return await netnsLinks();
  } catch (error) {
    return proxyLinks(`making them failed: ${(error as Error).message.split('\n')[0]}`);
  }
}
