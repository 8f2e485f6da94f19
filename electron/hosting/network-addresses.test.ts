import type { NetworkInterfaceInfo } from 'node:os';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseBackendUrl } from '../../shared/backend-addresses.ts';
import { backendUrlAt, reachableAddresses } from './network-addresses.ts';

/** An interface address as os.networkInterfaces() reports it. */
function v4(address: string, internal = false): NetworkInterfaceInfo {
  return { address, netmask: '255.255.255.0', family: 'IPv4', mac: '02:00:00:00:00:01', internal, cidr: `${address}/24` };
}
function v6(address: string, internal = false): NetworkInterfaceInfo {
  return {
    address,
    netmask: 'ffff:ffff:ffff:ffff::',
    family: 'IPv6',
    mac: '02:00:00:00:00:01',
    internal,
    cidr: `${address}/64`,
    scopeid: 0,
  };
}

const addressesOf = (interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>) => reachableAddresses(interfaces).map((a) => a.address);

describe('the addresses other machines may reach this one at', () => {
  it('leaves out loopback, link-local, unspecified and multicast addresses', () => {
    expect(
      addressesOf({
        lo: [v4('127.0.0.1', true), v6('::1', true)],
        eth0: [v4('169.254.10.2'), v6('fe80::1c2b:3dff:fe4e:5f60'), v4('0.0.0.0'), v6('ff02::1')],
      }),
    ).toEqual([]);
  });

  it('says there are none on a machine with only loopback, or no interfaces at all', () => {
    expect(reachableAddresses({ lo: [v4('127.0.0.1', true)] })).toEqual([]);
    expect(reachableAddresses({})).toEqual([]);
  });

  it("puts the home network's IPv4 address first, then a VPN's, then other IPv4, then IPv6, then container bridges", () => {
    expect(
      addressesOf({
        lo: [v4('127.0.0.1', true)],
        docker0: [v4('172.17.0.1')],
        tailscale0: [v4('100.101.102.103'), v6('fd7a:115c:a1e0::1')],
        eth0: [v6('2001:db8::5'), v4('203.0.113.7')],
        wlan0: [v4('192.168.1.23'), v6('fe80::2')],
      }),
    ).toEqual(['192.168.1.23', '100.101.102.103', '203.0.113.7', '2001:db8::5', 'fd7a:115c:a1e0::1', '172.17.0.1']);
  });

  it('counts a tailnet address as a VPN one whatever its interface is called, and a tunnel interface as a VPN', () => {
    expect(
      addressesOf({
        en0: [v4('198.51.100.4')],
        utun3: [v4('10.8.0.2')],
        wg0: [v4('10.9.0.2')],
        eth1: [v4('100.64.0.9')],
      }),
    ).toEqual(['10.8.0.2', '10.9.0.2', '100.64.0.9', '198.51.100.4']);
  });

  it('keeps the order the interfaces came in within one rank, and each address once', () => {
    expect(
      addressesOf({
        eth0: [v4('10.0.0.5')],
        eth1: [v4('192.168.50.2'), v4('10.0.0.5')],
      }),
    ).toEqual(['10.0.0.5', '192.168.50.2']);
  });

  it('names the family and interface of each address', () => {
    expect(reachableAddresses({ eth0: [v6('2001:db8::5')] })).toEqual([{ address: '2001:db8::5', family: 'IPv6', interface: 'eth0' }]);
  });

  it("reads this machine's own interfaces without failing, none of them loopback", () => {
    for (const found of reachableAddresses(networkInterfaces())) expect(found.address).not.toMatch(/^127\.|^::1$/);
  });
});

describe('the https address of a backend at one of them', () => {
  it('brackets an IPv6 address, and makes an address the device takes as it is', () => {
    expect(backendUrlAt('192.168.1.23', 8787)).toBe('https://192.168.1.23:8787');
    expect(backendUrlAt('FD7A:115C:A1E0::1', 8787)).toBe('https://[fd7a:115c:a1e0::1]:8787');
    for (const url of [backendUrlAt('192.168.1.23', 8787), backendUrlAt('fd7a:115c:a1e0::1', 443)])
      expect(parseBackendUrl(url)).toEqual({ ok: true, value: url });
  });
});
