/**
 * A device process on two addresses of one backend (relays in front of one real backend process,
 * as two instances on one database would be): it keeps working when the address it uses goes down,
 * says in its status when no address answers, catches up on what happened meanwhile once one
 * answers again, and moves to new addresses set through its API (kept in its profile).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceStatusView } from '../../shared/device-api.ts';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { DeviceClient, startBaton, waitFor, type RunningProcess } from '../../dev-env/process-harness.ts';
import { startTcpRelay, type TcpRelay } from '../../dev-env/tcp-relay.ts';

let sandbox: GitSandbox;
let backend: RunningProcess;
let first: TcpRelay;
let second: TcpRelay;
let laptop: { process: RunningProcess; client: DeviceClient; profile: string };
let desktop: { process: RunningProcess; client: DeviceClient; workspace: string };

beforeAll(async () => {
  sandbox = createGitSandbox('baton-backend-link-');
  const env = { ...sandbox.env, BATON_HEARTBEAT_MS: '500', BATON_DEMO_TURN_MS: '50' };
  backend = await startBaton(['backend', '--data', join(sandbox.root, 'backend'), '--port', '0'], 'backend: ', env);
  first = await startTcpRelay(backend.url);
  second = await startTcpRelay(backend.url);
  const profile = join(sandbox.root, 'laptop');
  const laptopProcess = await startBaton(
    ['device', '--profile', profile, '--backend', `${first.url},${second.url}`, '--name', 'laptop', '--create-account'],
    'ui: ',
    env,
  );
  laptop = { process: laptopProcess, client: await DeviceClient.connect(laptopProcess.url), profile };
  const { invite } = await laptop.client.take('createInvite', {});
  const workspace = join(sandbox.root, 'desktop-ws');
  mkdirSync(workspace, { recursive: true });
  sandbox.clone(sandbox.makeOrigin('app'), join(workspace, 'app'));
  const desktopProcess = await startBaton(
    [
      'device',
      '--profile',
      join(sandbox.root, 'desktop'),
      '--backend',
      backend.url,
      '--name',
      'desktop',
      '--workspace-root',
      workspace,
      '--join',
      invite,
    ],
    'ui: ',
    env,
  );
  desktop = { process: desktopProcess, client: await DeviceClient.connect(desktopProcess.url), workspace: join(workspace, 'app') };
}, 120_000);

afterAll(async () => {
  laptop?.client.close();
  desktop?.client.close();
  await Promise.all([laptop?.process.stop(5000), desktop?.process.stop(5000)]);
  await first?.down();
  await second?.down();
  await backend?.stop(5000);
  sandbox?.cleanup();
});

/** Waits until the laptop's status satisfies `probe`, saying what it last showed when it does not. */
async function laptopStatus(what: string, probe: (status: DeviceStatusView) => boolean): Promise<DeviceStatusView> {
  let last: DeviceStatusView | null = null;
  return waitFor(
    what,
    async () => {
      last = await laptop.client.call('getStatus', {});
      return probe(last) ? last : undefined;
    },
    15_000,
    100,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; last status: ${JSON.stringify(last)}\n${laptop.process.stderr().slice(-3000)}`);
  });
}

/** Starts a demo session on the desktop; resolves to its id. */
async function desktopSession(title: string): Promise<string> {
  const session = await desktop.client.take('startSession', {
    workspace: desktop.workspace,
    provider: 'demo',
    prompt: 'Look around',
    title,
  });
  return session.id;
}

const laptopKnows = async (sessionId: string) => (await laptop.client.call('listSessions', {})).some((s) => s.id === sessionId);

describe('a device on two addresses of one backend', () => {
  it('keeps its push stream when the address it uses goes down, through the other one', async () => {
    await laptopStatus('the laptop to reach the first address', (s) => s.reachability?.state === 'reachable');
    expect((await laptop.client.call('getStatus', {})).reachability?.current).toBe(first.url);
    await first.down();
    await laptopStatus('the laptop to move to the second address', (s) => s.reachability?.current === second.url);
    const sessionId = await desktopSession('Pushed through the second address');
    await waitFor('the laptop to hear of the session', async () => ((await laptopKnows(sessionId)) ? true : undefined), 15_000);
  });

  it('says when no address answers, and catches up on what it missed once one answers again', async () => {
    await second.down();
    const down = await laptopStatus('the laptop to find every address unreachable', (s) => s.reachability?.state === 'unreachable');
    expect(down.reachability?.tried.sort()).toEqual([first.url, second.url].sort());
    expect(down.reachability?.lastError).toBeTruthy();
    // Made while the laptop is cut off: its push never reaches the laptop, only the catch-up does.
    const missed = await desktopSession('Made while the laptop was cut off');
    expect(await laptopKnows(missed)).toBe(false);
    await first.up();
    const back = await laptopStatus('the laptop to reach the backend again', (s) => s.reachability?.state === 'reachable');
    expect(back.reachability).toMatchObject({ current: first.url, tried: [] });
    await waitFor('the laptop to catch up on the session it missed', async () => ((await laptopKnows(missed)) ? true : undefined), 15_000);
  });

  it('uses new addresses set through its API at once, and keeps them in its profile', async () => {
    await second.up();
    const set = await laptop.client.take('setBackendUrls', { backendUrls: [second.url] });
    expect(set.backendUrls).toEqual([second.url]);
    await laptopStatus('the laptop to use the new address', (s) => s.reachability?.current === second.url);
    const saved = JSON.parse(readFileSync(join(laptop.profile, 'profile.json'), 'utf8')) as { backendUrls: string[] };
    expect(saved.backendUrls).toEqual([second.url]);
    const refused = await laptop.client.call('setBackendUrls', { backendUrls: ['ftp://nowhere'] }).catch((error: Error) => error.message);
    expect(refused).toMatch(/"ftp:\/\/nowhere" is not an http:\/\/ or https:\/\/ address/);
  });
});
