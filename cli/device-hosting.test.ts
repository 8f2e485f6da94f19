/**
 * `baton device` hosting its account's backend, as processes: an account created with no --backend
 * is hosted by the device (over HTTPS, its data in --backend-data, its key pinned) and stops with it;
 * a device that joins uses the invite's addresses and hosts nothing; one process per profile (a
 * second refused naming the first, a killed one's lock taken over); a failed --create-account or
 * join leaves no half-made profile; and an `npm start` profile from before devices hosted their
 * backend is taken as hosting it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceClient, PROJECT_ROOT, startBaton, waitFor, type RunningProcess } from '../dev-env/process-harness.ts';
import { decodeInvite } from '../electron/enrollment/invite-token.ts';
import { hostedInviteUrls } from '../electron/hosting/network-addresses.ts';

const run = promisify(execFile);
const BATON = join(PROJECT_ROOT, 'bin', 'baton.js');
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-device-hosting-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

type Kept = { backendUrls: string[]; backendPins: string[]; hosting: unknown; backendHost: unknown; status: string };
const keptProfile = (dir: string) => JSON.parse(readFileSync(join(dir, 'profile.json'), 'utf8')) as Kept;

/** Whether anything answers the backend's health at `url` (its key not checked: only whether it listens). */
async function listening(url: string): Promise<boolean> {
  const { Agent, request } = await import('node:https');
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { agent: new Agent({ rejectUnauthorized: false }), timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Runs `baton <args>` to its end; its exit code and output. */
function runToEnd(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [BATON, ...args], { env: { ...process.env, BATON_NO_UI_BUILD: '1' } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe('a device that hosts its account’s backend', () => {
  let desk: RunningProcess;
  let client: DeviceClient;
  const profile = () => join(root, 'desk');
  const data = () => join(root, 'desk-backend');

  beforeAll(async () => {
    desk = await startBaton(['device', '--profile', profile(), '--backend-data', data(), '--name', 'desk', '--create-account'], 'ui: ');
    client = await DeviceClient.connect(desk.url);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await desk?.stop();
  });

  it('creates the account on a backend it hosts over HTTPS, its data beside the profile, pinning its key', async () => {
    const kept = keptProfile(profile());
    expect(kept.backendUrls).toEqual([expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/)]);
    expect(kept.backendPins).toEqual([expect.stringMatching(/^sha256:/)]);
    expect(kept.hosting).toEqual({ dataDir: data(), port: Number(new URL(kept.backendUrls[0]!).port), shared: false });
    expect(existsSync(join(data(), 'tls-key.pem'))).toBe(true);
    const status = await client.call('getStatus', {});
    expect(status).toMatchObject({
      enrolled: true,
      deviceName: 'desk',
      backendHome: { where: 'this-device', hosted: { state: 'running' } },
    });
    await waitFor('the device to reach the backend it hosts', async () =>
      (await client.call('getStatus', {})).reachability?.state === 'reachable' ? true : undefined,
    );
  });

  it('refuses a second process on its profile, naming the running one and its UI address', async () => {
    const second = await runToEnd(['device', '--profile', profile()]);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    const port = new URL(desk.url).port;
    expect(second.stderr).toContain(`is already in use by baton device (process ${desk.child.pid}, its UI at http://127.0.0.1:${port}/)`);
    expect(second.stderr).not.toContain(new URL(desk.url).searchParams.get('token')!);
  });

  it('makes invites carrying its loopback address while it listens on this machine only, naming itself', async () => {
    const made = await client.take('createInvite', {});
    expect(made.thisMachineOnly).toBe(true);
    const joiner = join(root, 'laptop');
    const laptop = await startBaton(['device', '--profile', joiner, '--name', 'laptop', '--join', made.invite], 'ui: ');
    try {
      const kept = keptProfile(joiner);
      expect(kept).toMatchObject({ status: 'enrolled', backendUrls: keptProfile(profile()).backendUrls, hosting: null });
      expect(kept.backendHost).toEqual({ deviceId: (await client.call('getStatus', {})).deviceId, name: 'desk' });
      // It hosts nothing: no backend data of its own.
      expect(existsSync(join(joiner, 'backend'))).toBe(false);
      const laptopClient = await DeviceClient.connect(laptop.url);
      expect((await laptopClient.call('getStatus', {})).backendHome).toMatchObject({ where: 'device', deviceName: 'desk' });
      laptopClient.close();
    } finally {
      await laptop.stop();
    }
  }, 60_000);

  it('has baton invite warn that its invite works only here, and --share-backend let other machines reach the backend first', async () => {
    const local = await runToEnd(['invite', '--profile', profile()]);
    expect(local.code).toBe(0);
    expect(local.stderr).toContain('baton invite: warning: this invite works only for a device on this machine');
    expect(local.stderr).toContain(`baton invite --profile ${profile()} --share-backend`);
    const localToken = decodeInvite(local.stdout.trim());
    expect(localToken.ok && localToken.value.backendUrls).toEqual(keptProfile(profile()).backendUrls);

    const shared = await runToEnd(['invite', '--profile', profile(), '--share-backend']);
    expect(shared.code).toBe(0);
    const port = Number(new URL(keptProfile(profile()).backendUrls[0]!).port);
    expect(keptProfile(profile()).hosting).toMatchObject({ port, shared: true });
    expect((await client.call('getStatus', {})).backendHome).toMatchObject({
      where: 'this-device',
      hosted: { shared: true, state: 'running' },
    });
    const token = decodeInvite(shared.stdout.trim());
    const expected = hostedInviteUrls(port, true, networkInterfaces());
    expect(token.ok && token.value).toMatchObject({ backendUrls: expected, backendHost: { name: 'desk' } });
    // With no network address on this machine there is nothing else to carry, and the warning stays.
    expect(shared.stderr.includes('works only for a device on this machine')).toBe(expected[0]!.startsWith('https://127.'));
    expect((await client.take('shareBackend', { shared: false })).backendHome).toMatchObject({ hosted: { shared: false } });
  }, 60_000);

  it('stops the backend with itself, and serves it again at the same address when started again', async () => {
    const [url] = keptProfile(profile()).backendUrls;
    client.close();
    expect(await desk.stop()).toBe(0);
    expect(await listening(url!)).toBe(false);
    desk = await startBaton(['device', '--profile', profile()], 'ui: ');
    client = await DeviceClient.connect(desk.url);
    expect(await listening(url!)).toBe(true);
    expect(keptProfile(profile()).backendUrls).toEqual([url]);
  }, 60_000);

  it('takes over the lock of a killed process', async () => {
    client.close();
    await desk.kill();
    desk = await startBaton(['device', '--profile', profile()], 'ui: ');
    client = await DeviceClient.connect(desk.url);
    expect((await client.call('getStatus', {})).enrolled).toBe(true);
  }, 60_000);
});

describe('what a failed start leaves', () => {
  it('leaves no half-made profile when --create-account meets a backend that does not answer', async () => {
    const dir = join(root, 'dead-backend');
    const failed = await runToEnd(['device', '--profile', dir, '--backend', 'http://127.0.0.1:9', '--create-account']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('unreachable');
    expect(existsSync(join(dir, 'profile.json'))).toBe(false);
    expect(existsSync(join(dir, 'identity-signing.key'))).toBe(false);
    // And the next start is a fresh one: the set-up screen, hosting nothing yet.
    const fresh = await startBaton(['device', '--profile', dir], 'ui: ');
    const fresher = await DeviceClient.connect(fresh.url);
    expect(await fresher.call('getStatus', {})).toMatchObject({ enrolled: false, backendUrls: [] });
    fresher.close();
    await fresh.stop();
    expect(existsSync(join(dir, 'backend'))).toBe(false);
  }, 60_000);
});

describe('a profile npm start made before devices hosted their backend', () => {
  it('is taken as hosting the backend whose data is beside it, now over HTTPS with its key pinned', async () => {
    const home = join(root, 'old-home');
    const data = join(home, 'backend');
    const old = await startBaton(['backend', '--data', data, '--port', '0'], 'backend: ');
    const device = await startBaton(['device', '--profile', join(home, 'profile'), '--backend', old.url, '--create-account'], 'ui: ');
    await device.stop();
    await old.stop();
    const port = Number(new URL(old.url).port);

    const adopted = await startBaton(['device', '--profile', join(home, 'profile'), '--backend-data', data], 'ui: ');
    try {
      expect(adopted.stderr()).toContain(`this device hosts the sync backend whose data is in ${data} (now over HTTPS)`);
      expect(keptProfile(join(home, 'profile'))).toMatchObject({
        backendUrls: [`https://127.0.0.1:${port}`],
        backendPins: [expect.stringMatching(/^sha256:/)],
        hosting: { dataDir: data, port, shared: false },
      });
      const adoptedClient = await DeviceClient.connect(adopted.url);
      await waitFor('the device to reach the backend it now hosts', async () =>
        (await adoptedClient.call('getStatus', {})).reachability?.state === 'reachable' ? true : undefined,
      );
      adoptedClient.close();
    } finally {
      await adopted.stop();
    }
  }, 90_000);
});
