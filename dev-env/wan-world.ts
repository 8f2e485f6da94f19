/**
 * Two devices each behind a slow link (bench:handoff-wan): the backend (over TLS, its self-signed key
 * pinned, unless told otherwise) and a git:// host for the sandbox's origins (git-daemon.ts), each
 * device reaching both through relays of its own (tcp-relay.ts), as a laptop in a café and a desktop
 * at home reach a backend on a small server and their git host. `shape` makes every link slow at
 * once, or plain again. Every clone names its origin by one address, GIT_HOST (as two devices name
 * one GitHub repository alike); each device's git config (its HOME's .gitconfig, `insteadOf`) sends
 * that address through the device's own git relay.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startGitDaemon, type GitDaemon } from './git-daemon.ts';
import { startTcpRelay, type LinkConditions, type TcpRelay } from './tcp-relay.ts';
import { startTwoDevices, type TwoDevices, type TwoDevicesOptions } from './two-devices.ts';

const run = promisify(execFile);

export type WanDevice = 'laptop' | 'desktop';

/** The git host every clone names its origin by (`${GIT_HOST}/NAME.git`); it resolves nowhere, so only the rewrite reaches it. */
export const GIT_HOST = 'git://git.baton.test';

/** One device's links: to the backend and to the git host. */
export interface DeviceLinks {
  backend: TcpRelay;
  git: TcpRelay;
}

export interface WanWorld {
  world: TwoDevices;
  links: Record<WanDevice, DeviceLinks>;
  /** Every link as `conditions` from now on (null: plain relays). */
  shape(conditions: LinkConditions | null): void;
  /** Runs git in `cwd` as `device` does (its HOME), without blocking this process (its relays run here). */
  git(device: WanDevice, cwd: string, args: string[]): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts the backend, its relays, the devices (each with a HOME of its own: `laptopEnv.HOME` and
 * `desktopEnv.HOME` when given), the git host and its relays; the laptop's clone names GIT_HOST.
 */
export async function startWanWorld(options: TwoDevicesOptions = {}): Promise<WanWorld> {
  const homes: Record<WanDevice, string> = {
    laptop: options.laptopEnv?.HOME ?? mkdtempSync(join(tmpdir(), 'baton-wan-laptop-')),
    desktop: options.desktopEnv?.HOME ?? mkdtempSync(join(tmpdir(), 'baton-wan-desktop-')),
  };
  const backendRelays: Partial<Record<WanDevice, TcpRelay>> = {};
  let daemon: GitDaemon | null = null;
  const relays: TcpRelay[] = [];
  const close = async () => {
    await daemon?.close();
    await Promise.all(relays.map((relay) => relay.down()));
  };
  try {
    const world = await startTwoDevices({
      tls: true,
      ...options,
      laptopEnv: { ...options.laptopEnv, HOME: homes.laptop },
      desktopEnv: { ...options.desktopEnv, HOME: homes.desktop },
      backendAddressesPerDevice: async (url) => {
        for (const device of ['laptop', 'desktop'] as const) relays.push((backendRelays[device] = await startTcpRelay(url)));
        return { laptop: [backendRelays.laptop!.url], desktop: [backendRelays.desktop!.url] };
      },
    });
    daemon = await startGitDaemon(join(world.sandbox.root, 'origins'), world.env);
    const gitRelay = async () => {
      const relay = await startTcpRelay(daemon!.url);
      relays.push(relay);
      return relay;
    };
    const links: Record<WanDevice, DeviceLinks> = {
      laptop: { backend: backendRelays.laptop!, git: await gitRelay() },
      desktop: { backend: backendRelays.desktop!, git: await gitRelay() },
    };
    for (const device of ['laptop', 'desktop'] as const) {
      mkdirSync(homes[device], { recursive: true });
      writeFileSync(join(homes[device], '.gitconfig'), `[url "${links[device].git.url}/"]\n\tinsteadOf = ${GIT_HOST}/\n`);
    }
    const git = async (device: WanDevice, cwd: string, args: string[]) =>
      (await run('git', args, { cwd, env: { ...world.env, HOME: homes[device] }, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
    await git('laptop', world.repo, ['remote', 'set-url', 'origin', `${GIT_HOST}/app.git`]);
    return {
      world,
      links,
      shape: (conditions) => relays.forEach((relay) => relay.shape(conditions)),
      git,
      async close() {
        await world.cleanup();
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
