/**
 * The addresses other machines may reach this one at, for a backend this device lets them reach:
 * every unicast address of the machine except loopback and link-local ones (a VPN's address, such as
 * a tailnet's, included), the most likely first. Pure: it reads what `os.networkInterfaces()`
 * answered, so a test can hand it any machine's interfaces.
 *
 * The order: an IPv4 address of a home or office network (10/8, 172.16/12, 192.168/16) on a real
 * interface; then a VPN's IPv4 address (a tunnel interface, or the 100.64/10 range tailnets use);
 * then any other IPv4 address; then IPv6 (global or unique-local), a VPN's after a real interface's;
 * last, addresses of the virtual bridges containers and virtual machines make, which another machine
 * rarely reaches. Within a rank, the interfaces' own order.
 */
import type { NetworkInterfaceInfo } from 'node:os';
import { MAX_BACKEND_ADDRESSES } from '../../shared/backend-addresses.ts';

/** One address of this machine another machine may use. */
export interface NetworkAddress {
  address: string;
  family: 'IPv4' | 'IPv6';
  /** The interface it is on. */
  interface: string;
}

const VPN_INTERFACE = /^(tailscale|utun|wg|tun|tap|zt|ppp|ipsec|nordlynx|proton|mullvad|ts\d)/i;
const VIRTUAL_INTERFACE = /^(docker|br-|virbr|veth|cni|flannel|podman|lxcbr|lxdbr|vmnet|vboxnet|vethernet|kube)/i;

/** The four bytes of a dotted IPv4 address (null when it is not one). */
function octets(address: string): number[] | null {
  const parts = address.split('.').map(Number);
  return parts.length === 4 && parts.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? parts : null;
}

/** Whether `address` is one another machine can use at all: not loopback, link-local, unspecified or multicast. */
function usable(info: NetworkInterfaceInfo): boolean {
  if (info.internal) return false;
  if (info.family === 'IPv4') {
    const bytes = octets(info.address);
    if (bytes === null) return false;
    const [a, b] = bytes as [number, number];
    return a !== 0 && a !== 127 && !(a === 169 && b === 254) && a < 224;
  }
  const text = info.address.toLowerCase();
  if (text.includes('%') || text === '::' || text === '::1') return false;
  // fe80::/10 is link-local; ff00::/8 multicast; ::ffff:0:0/96 an IPv4 address in disguise.
  return !/^fe[89ab]/.test(text) && !text.startsWith('ff') && !text.startsWith('::ffff:');
}

/** The rank of an address: lower is the more likely one for another machine to reach. */
function rank(name: string, info: NetworkInterfaceInfo): number {
  if (VIRTUAL_INTERFACE.test(name)) return 5;
  const vpn = VPN_INTERFACE.test(name);
  if (info.family === 'IPv6') return vpn ? 4 : 3;
  const [a, b] = octets(info.address) as [number, number];
  if (vpn || (a === 100 && b >= 64 && b < 128)) return 1;
  const home = a === 10 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168);
  return home ? 0 : 2;
}

/**
 * Every address another machine may reach this one at, most likely first (see the header), each
 * once: `interfaces` is what `os.networkInterfaces()` answered.
 */
export function reachableAddresses(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): NetworkAddress[] {
  const found: { address: NetworkAddress; rank: number; order: number }[] = [];
  for (const [name, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (!usable(info) || found.some((f) => f.address.address === info.address)) continue;
      const family = info.family === 'IPv4' ? 'IPv4' : 'IPv6';
      found.push({ address: { address: info.address, family, interface: name }, rank: rank(name, info), order: found.length });
    }
  }
  return found.sort((x, y) => x.rank - y.rank || x.order - y.order).map((f) => f.address);
}

/** The https address of a backend on `port` at `address` (an IPv6 address in brackets). */
export function backendUrlAt(address: string, port: number): string {
  return `https://${address.includes(':') ? `[${address.toLowerCase()}]` : address}:${port}`;
}

/** The https addresses other machines reach a backend on `port` at, most likely first (as many as a device keeps). */
export function networkBackendUrls(port: number, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  return reachableAddresses(interfaces)
    .slice(0, MAX_BACKEND_ADDRESSES)
    .map((found) => backendUrlAt(found.address, port));
}

/**
 * The addresses an invite of the device hosting a backend on `port` carries: the ones other machines
 * use while it lets them reach it (when the machine has any), else its loopback address.
 */
export function hostedInviteUrls(port: number, shared: boolean, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  const network = shared ? networkBackendUrls(port, interfaces) : [];
  return network.length > 0 ? network : [`https://127.0.0.1:${port}`];
}
