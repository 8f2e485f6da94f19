/** `baton device` as a process: its one stdout line, refusals, clean SIGTERM and restart on the same profile. */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceClient, PROJECT_ROOT, startBaton, waitFor, type RunningProcess } from '../dev-env/process-harness.ts';

const run = promisify(execFile);
const BATON = join(PROJECT_ROOT, 'bin', 'baton.js');
let root: string;
let backend: RunningProcess;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-device-cmd-'));
  backend = await startBaton(['backend', '--data', join(root, 'data'), '--port', '0'], 'backend: ');
}, 60_000);

afterAll(async () => {
  await backend?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('baton device', () => {
  it('prints its usage for --help', async () => {
    const { stdout } = await run(process.execPath, [BATON, 'device', '--help']);
    expect(stdout).toContain('baton device --profile DIR [--backend URL[,URL…] [--backend-pin KEY[,KEY…]]] [--backend-data DIR]');
    expect(stdout).toContain('Without --backend, a device that creates an account hosts the account');
    expect(stdout).toContain('BATON_PREPARE_TIMEOUT_MS');
  });

  it('serves the first-run screen for a profile that is not enrolled, and runs the device once an account is created there', async () => {
    const profile = join(root, 'fresh');
    const fresh = await startBaton(['device', '--profile', profile, '--backend', backend.url], 'ui: ');
    expect(fresh.stderr()).toMatch(/not enrolled yet: open the UI/);
    const client = await DeviceClient.connect(fresh.url);
    expect(await client.call('getStatus', {})).toMatchObject({ enrolled: false, backendUrls: [backend.url], reachability: null });
    // Before enrollment an act is refused as a value with its code, not as an internal failure.
    expect(await client.call('startSession', { workspace: root, provider: 'demo', title: 't', prompt: 'p' })).toMatchObject({
      ok: false,
      code: 'not_enrolled',
      message: expect.stringMatching(/not enrolled/),
    });
    expect(await client.call('createInvite', {})).toMatchObject({ ok: false, code: 'not_enrolled' });
    const created = await client.take('createAccount', { backendUrls: [backend.url], deviceName: 'first-run' });
    expect(created).toMatchObject({ enrolled: true, deviceName: 'first-run' });
    expect(await client.call('listProviders', {})).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'demo' })]));
    // Enrolled, a refused act still answers its own code (here: the folder holds no repository).
    expect(await client.call('startSession', { workspace: root, provider: 'demo', prompt: 'p' })).toMatchObject({
      ok: false,
      code: 'not_a_repository',
    });
    expect(await client.call('startSession', { workspace: root, provider: 'nobody', prompt: 'p' })).toMatchObject({
      ok: false,
      code: 'unknown_provider',
    });
    client.close();
    expect(await fresh.stop()).toBe(0);

    const again = await startBaton(['device', '--profile', profile, '--backend', backend.url], 'ui: ');
    const reconnected = await DeviceClient.connect(again.url);
    expect(await reconnected.call('getStatus', {})).toMatchObject({ enrolled: true, deviceId: created.deviceId });
    reconnected.close();
    expect(await again.stop()).toBe(0);
  }, 60_000);

  it('keeps its address across restarts, prints it with `baton open`, and takes --port over it', async () => {
    const profile = join(root, 'stable');
    const args = ['device', '--profile', profile, '--backend', backend.url, '--create-account'];
    const first = await startBaton(args, 'ui: ');
    const opened = await run(process.execPath, [BATON, 'open', '--profile', profile]);
    expect(opened.stdout).toBe(`ui: ${first.url}\n`);
    expect(await first.stop()).toBe(0);
    const closed = await run(process.execPath, [BATON, 'open', '--profile', profile]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(closed).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`does not answer at http://127.0.0.1:${new URL(first.url).port}`),
    });

    const again = await startBaton(['device', '--profile', profile], 'ui: ');
    expect(again.url).toBe(first.url);
    // The kept port taken by another process: the UI moves to a free one (and keeps that), the token stays.
    expect(await again.stop()).toBe(0);
    const squatter = createServer().listen(Number(new URL(first.url).port), '127.0.0.1');
    await new Promise((resolve) => squatter.once('listening', resolve));
    try {
      const moved = await startBaton(['device', '--profile', profile], 'ui: ');
      expect(new URL(moved.url).port).not.toBe(new URL(first.url).port);
      expect(new URL(moved.url).searchParams.get('token')).toBe(new URL(first.url).searchParams.get('token'));
      expect(moved.stderr()).toContain('is in use now; the UI moved to port');
      expect(await moved.stop()).toBe(0);
    } finally {
      squatter.close();
    }
    const given = await startBaton(['device', '--profile', profile, '--port', '0'], 'ui: ');
    expect(new URL(given.url).searchParams.get('token')).toBe(new URL(first.url).searchParams.get('token'));
    expect(await given.stop()).toBe(0);
  }, 60_000);

  it('stops promptly on SIGTERM while a join from the set-up screen waits for an inviter that is not running', async () => {
    const inviterProfile = join(root, 'inviter');
    const inviter = await startBaton(
      ['device', '--profile', inviterProfile, '--backend', backend.url, '--name', 'inviter', '--create-account'],
      'ui: ',
    );
    expect(await inviter.stop()).toBe(0);
    const { stdout: invite } = await run(process.execPath, [BATON, 'invite', '--profile', inviterProfile]);

    const newcomer = await startBaton(
      ['device', '--profile', join(root, 'newcomer'), '--backend', backend.url, '--name', 'newcomer'],
      'ui: ',
    );
    const client = await DeviceClient.connect(newcomer.url);
    const joined = client.call('joinAccount', { invite: invite.trim(), deviceName: 'newcomer' }).then(
      () => 'joined',
      (error: Error) => error.message,
    );
    await waitFor('the join to wait for approval', async () => ((await client.call('getStatus', {})).joining ? true : undefined));
    const started = Date.now();
    expect(await newcomer.stop(8000)).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    client.close();
    expect(await joined).not.toBe('joined');
  }, 60_000);

  it('refuses a malformed --backend list with a usage error in words, before touching the profile', async () => {
    const profile = join(root, 'bad-backend');
    for (const [list, why] of [
      [`${backend.url},ftp://elsewhere`, '"ftp://elsewhere" is not an http:// or https:// address'],
      [`${backend.url},,http://user:pw@10.0.0.6:8787`, 'carries credentials'],
      ['', 'no backend address given'],
    ] as const) {
      const failed = await run(process.execPath, [BATON, 'device', '--profile', profile, '--backend', list, '--create-account']).then(
        () => null,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stdout).toBe('');
      expect(failed?.stderr).toContain('--backend takes one or more http(s) addresses separated by commas');
      expect(failed?.stderr).toContain(why);
      expect(failed?.stderr).not.toMatch(/ZodError|"code":|invalid_format/);
    }
    expect(() => readFileSync(join(profile, 'profile.json'))).toThrow();
  });

  it('uses and keeps the --backend addresses given to an enrolled profile, failing over from a dead first one', async () => {
    const profile = join(root, 'moved');
    const first = await startBaton(
      ['device', '--profile', profile, '--backend', backend.url, '--name', 'moved', '--create-account'],
      'ui: ',
    );
    expect(await first.stop()).toBe(0);
    const dead = 'http://127.0.0.1:9';
    const again = await startBaton(['device', '--profile', profile, '--backend', `${dead},${backend.url}`], 'ui: ');
    const client = await DeviceClient.connect(again.url);
    expect(await client.call('getStatus', {})).toMatchObject({ enrolled: true, backendUrls: [dead, backend.url] });
    // It works through the second address: its heartbeat and stream reach the backend.
    await waitFor('the device to reach its backend', async () => {
      const status = await client.call('getStatus', {});
      return status.reachability?.state === 'reachable' ? status.reachability : undefined;
    });
    expect((await client.call('getStatus', {})).reachability).toMatchObject({ current: backend.url });
    const saved = JSON.parse(readFileSync(join(profile, 'profile.json'), 'utf8')) as { backendUrls: string[] };
    expect(saved.backendUrls).toEqual([dead, backend.url]);
    client.close();
    expect(await again.stop()).toBe(0);

    // Without --backend the saved addresses are used.
    const third = await startBaton(['device', '--profile', profile], 'ui: ');
    const reconnected = await DeviceClient.connect(third.url);
    expect(await reconnected.call('getStatus', {})).toMatchObject({ backendUrls: [dead, backend.url] });
    reconnected.close();
    expect(await third.stop()).toBe(0);
  }, 60_000);

  it('joins through the --backend addresses given with --join, and through the invite’s addresses without', async () => {
    const dead = 'http://127.0.0.1:9';
    const inviter = await startBaton(
      ['device', '--profile', join(root, 'inviter-2'), '--backend', `${backend.url},${dead}`, '--name', 'inviter-2', '--create-account'],
      'ui: ',
    );
    const inviterClient = await DeviceClient.connect(inviter.url);
    try {
      const given = (await inviterClient.take('createInvite', {})).invite;
      const withFlag = await startBaton(
        ['device', '--profile', join(root, 'joiner-flag'), '--backend', `${dead},${backend.url}`, '--name', 'j1', '--join', given],
        'ui: ',
      );
      expect(await withFlag.stop()).toBe(0);
      const flagged = JSON.parse(readFileSync(join(root, 'joiner-flag', 'profile.json'), 'utf8')) as {
        backendUrls: string[];
        status: string;
      };
      expect(flagged).toMatchObject({ status: 'enrolled', backendUrls: [dead, backend.url] });

      const offered = (await inviterClient.take('createInvite', {})).invite;
      const withInvite = await startBaton(['device', '--profile', join(root, 'joiner-invite'), '--name', 'j2', '--join', offered], 'ui: ');
      expect(await withInvite.stop()).toBe(0);
      const invited = JSON.parse(readFileSync(join(root, 'joiner-invite', 'profile.json'), 'utf8')) as {
        backendUrls: string[];
        status: string;
      };
      expect(invited).toMatchObject({ status: 'enrolled', backendUrls: [backend.url, dead] });
    } finally {
      inviterClient.close();
      await inviter.stop();
    }
  }, 90_000);

  it('refuses a bad invite at startup with a message and no UI line', async () => {
    const failed = await run(process.execPath, [
      BATON,
      'device',
      '--profile',
      join(root, 'bad-invite'),
      '--backend',
      backend.url,
      '--join',
      'not-an-invite',
    ]).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).toMatch(/invite/i);
  });

  it('prints exactly one ui line when ready, stops with exit 0 on SIGTERM, and comes back as the same device', async () => {
    const profile = join(root, 'laptop');
    const first = await startBaton(
      ['device', '--profile', profile, '--backend', backend.url, '--name', 'laptop', '--create-account'],
      'ui: ',
    );
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+$/);
    const client = await DeviceClient.connect(first.url);
    const status = await client.call('getStatus', {});
    expect(status).toMatchObject({ enrolled: true, deviceName: 'laptop' });
    client.close();
    expect(await first.stop()).toBe(0);
    expect(first.stdout()).toBe(`ui: ${first.url}\n`);

    const second = await startBaton(['device', '--profile', profile, '--backend', backend.url], 'ui: ');
    const again = await DeviceClient.connect(second.url);
    expect((await again.call('getStatus', {})).deviceId).toBe(status.deviceId);
    again.close();
    expect(await second.stop()).toBe(0);
  }, 60_000);
});
