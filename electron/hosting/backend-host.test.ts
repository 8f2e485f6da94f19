/**
 * The backend a device hosts, run by the in-process engine `baton device` uses, against real sockets:
 * it serves HTTPS with the key its data folder keeps, on this machine only until shared; shared, it
 * answers on the machine's other addresses (127.0.0.2 stands for them: on Linux the whole of 127/8 is
 * this machine, but a listener on 127.0.0.1 alone does not answer there); the choice and port are
 * kept; a taken port gives way to a free one only until other machines were told it.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { inProcessHostingEngine } from '../../cli/hosted-engine.ts';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import type { HostingRecord } from '../enrollment/profile.ts';
import { BackendTrust } from '../sync/backend-trust.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { BackendHost } from './backend-host.ts';

const folder = tempFolders('baton-host-');
const running: BackendHost[] = [];
const held: Server[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((host) => host.stop()));
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A host of a backend in a fresh folder, and every record it asked to keep. */
function host(record: Partial<HostingRecord> = {}, interfaces = () => ({})) {
  const kept: (HostingRecord | null)[] = [];
  const made = new BackendHost({
    engine: inProcessHostingEngine(() => undefined),
    record: { dataDir: folder(), port: 0, shared: false, ...record },
    keep: (r) => kept.push(r),
    interfaces,
    log: () => undefined,
  });
  running.push(made);
  return { host: made, kept };
}

/** Whether a backend answers its health at `url`, accepting only `pin`. */
async function answers(url: string, pin: string): Promise<boolean> {
  const signer = { deviceId: 'probe', sign: () => new Uint8Array(64) };
  const client = createBackendClient({ baseUrl: url, signer, trust: new BackendTrust([pin]), attempts: 1, timeoutMs: 3000 });
  return (await client.call('health')).ok;
}

/** A port some other program holds. */
async function takenPort(): Promise<number> {
  const server = createServer().listen(0, '0.0.0.0');
  await new Promise((resolve) => server.once('listening', resolve));
  held.push(server);
  return (server.address() as { port: number }).port;
}

describe('the backend a device hosts', () => {
  it('serves HTTPS on this machine only, with the key its folder keeps, at the same port each start', async () => {
    const { host: first, kept } = host();
    const started = await first.start();
    if (!started.ok) throw new Error(started.message);
    const { port } = first.view();
    expect(started.value).toEqual({ url: `https://127.0.0.1:${port}`, pin: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(first.view()).toEqual({ state: 'running', port, shared: false, addresses: [], error: null });
    expect(await answers(started.value.url, started.value.pin)).toBe(true);
    expect(await answers(`https://127.0.0.2:${port}`, started.value.pin)).toBe(false);
    expect(kept.at(-1)).toEqual({ dataDir: first.kept().dataDir, port, shared: false });
    await first.stop();
    expect(await answers(started.value.url, started.value.pin)).toBe(false);

    const { host: again } = host(kept.at(-1)!);
    const restarted = await again.start();
    expect(restarted).toEqual({ ok: true, value: started.value });
  });

  it("lets other machines reach it once shared, listing the machine's addresses, and keeps the choice; unshared, only this machine again", async () => {
    const interfaces = () => ({
      wlan0: [{ address: '192.168.1.23', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '', internal: false, cidr: null }],
    });
    const { host: desk, kept } = host({}, interfaces);
    const started = await desk.start();
    if (!started.ok) throw new Error(started.message);
    const { port } = desk.view();
    expect(desk.inviteAddresses()).toEqual([`https://127.0.0.1:${port}`]);
    const shared = await desk.setShared(true);
    expect(shared).toEqual({
      ok: true,
      value: { state: 'running', port, shared: true, addresses: [`https://192.168.1.23:${port}`], error: null },
    });
    expect(kept.at(-1)).toMatchObject({ port, shared: true });
    expect(desk.inviteAddresses()).toEqual([`https://192.168.1.23:${port}`]);
    // The same key, at the same port, on every address: this device's own address and pin still work.
    expect(await answers(started.value.url, started.value.pin)).toBe(true);
    expect(await answers(`https://127.0.0.2:${port}`, started.value.pin)).toBe(true);
    expect((await desk.setShared(false)).ok).toBe(true);
    expect(kept.at(-1)).toMatchObject({ port, shared: false });
    expect(await answers(`https://127.0.0.2:${port}`, started.value.pin)).toBe(false);
    expect(await answers(started.value.url, started.value.pin)).toBe(true);
  });

  it('moves to a free port when its own is taken before anyone else was told it, and keeps the new one', async () => {
    const port = await takenPort();
    const { host: desk, kept } = host({ port });
    const started = await desk.start();
    expect(started.ok).toBe(true);
    expect(desk.view().port).not.toBe(port);
    expect(kept.at(-1)?.port).toBe(desk.view().port);
  });

  it('does not start, saying why, when the port other machines were told is taken', async () => {
    const port = await takenPort();
    const { host: desk } = host({ port, shared: true });
    const started = await desk.start();
    expect(started).toMatchObject({ ok: false, code: 'port_in_use' });
    expect(desk.view()).toMatchObject({
      state: 'failed',
      port,
      error: `Port ${port}, which the sync backend on this device keeps, is in use by another program.`,
    });
  });

  it('says why it could not let other machines reach it, and serves this machine as before', async () => {
    const { host: desk, kept } = host();
    const started = await desk.start();
    if (!started.ok) throw new Error(started.message);
    const { port } = desk.view();
    // Another program on one of the machine's other addresses, at the same port: listening on every address fails.
    const squatter = createServer().listen(port, '127.0.0.2');
    await new Promise((resolve) => squatter.once('listening', resolve));
    held.push(squatter);
    expect(await desk.setShared(true)).toMatchObject({ ok: false, code: 'port_in_use' });
    expect(desk.view()).toMatchObject({ state: 'running', port, shared: false });
    expect(kept.at(-1)).toMatchObject({ port, shared: false });
    expect(await answers(started.value.url, started.value.pin)).toBe(true);
  });

  it('stops for good when retired, telling the profile it hosts nothing', async () => {
    const { host: desk, kept } = host();
    const started = await desk.start();
    if (!started.ok) throw new Error(started.message);
    await desk.retire();
    expect(kept.at(-1)).toBeNull();
    expect(await answers(started.value.url, started.value.pin)).toBe(false);
    expect(await desk.setShared(true)).toMatchObject({ ok: false, code: 'not_hosting' });
  });
});
