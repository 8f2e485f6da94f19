/**
 * `npm start` (scripts/start.js) where Electron cannot run: it says why in plain words, falls back to
 * the headless device (the same app, in the browser) whose set-up screen offers the backend, and
 * stops everything it started on SIGTERM. It keeps its UI address across restarts, refuses to run a
 * second time on one home, hosts the backend when it creates the account, and joins with
 * BATON_INVITE through the invite's addresses, hosting none. Electron's package is pointed at a
 * stand-in folder so the check does not depend on whether this machine downloaded Electron.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceClient, PROJECT_ROOT, startBaton, startScript, type RunningProcess } from '../dev-env/process-harness.ts';

const START = join(PROJECT_ROOT, 'scripts', 'start.js');
let root: string;
let backend: RunningProcess;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-start-'));
  backend = await startBaton(['backend', '--data', join(root, 'backend'), '--port', '0'], 'backend: ');
}, 60_000);

afterAll(async () => {
  await backend?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** Runs `npm start`'s script with Electron's package at `electronPackage`, until it says where the UI is. */
async function start(name: string, electronPackage: string): Promise<RunningProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BATON_HOME: join(root, name),
    // A list: the headless device takes every address (the second is never reached here).
    BATON_BACKEND: `${backend.url},http://127.0.0.1:9`,
    BATON_UI_PORT: '0',
    BATON_NAME: name,
    BATON_ELECTRON_PACKAGE: electronPackage,
  };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  return startScript(START, [], 'baton: open ', env, 120_000);
}

/** `npm start`'s environment for a home of its own, no display, Electron not downloaded; `more` on top. */
function headlessEnv(name: string, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const electronPackage = join(root, 'electron-absent');
  mkdirSync(electronPackage, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BATON_HOME: join(root, name),
    BATON_NAME: name,
    BATON_ELECTRON_PACKAGE: electronPackage,
  };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.BATON_BACKEND;
  delete env.BATON_UI_PORT;
  return { ...env, ...more };
}

const uiOf = (started: RunningProcess) => /baton: open (\S+) in a browser/.exec(started.stdout())![1]!;

async function expectHeadlessDevice(started: RunningProcess, name: string): Promise<void> {
  expect(started.stdout()).toContain('running the headless device instead');
  const url = /baton: open (\S+) in a browser/.exec(started.stdout())?.[1];
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
  const client = await DeviceClient.connect(url!);
  expect(await client.call('getStatus', {})).toMatchObject({
    enrolled: false,
    deviceName: name,
    backendUrls: [backend.url, 'http://127.0.0.1:9'],
  });
  client.close();
  expect(await started.stop()).toBe(0);
  await expect(DeviceClient.connect(url!)).rejects.toThrow();
}

describe('npm start without Electron', () => {
  it('says the Electron binary was not downloaded and runs the headless device, stopping it on SIGTERM', async () => {
    const electronPackage = join(root, 'electron-not-downloaded');
    mkdirSync(electronPackage);
    const started = await start('no-binary', electronPackage);
    expect(started.stdout()).toContain('not starting the desktop app because the Electron binary was not downloaded on this machine');
    await expectHeadlessDevice(started, 'no-binary');
  }, 150_000);

  it('says there is no display when the binary is there but no display is', async () => {
    const electronPackage = join(root, 'electron-downloaded');
    mkdirSync(join(electronPackage, 'dist'), { recursive: true });
    writeFileSync(join(electronPackage, 'path.txt'), 'electron');
    writeFileSync(join(electronPackage, 'dist', 'electron'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(electronPackage, 'dist', 'electron'), 0o755);
    const started = await start('no-display', electronPackage);
    expect(started.stdout()).toContain(
      'not starting the desktop app because there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)',
    );
    await expectHeadlessDevice(started, 'no-display');
  }, 150_000);
});

describe('npm start, headless, across restarts and machines', () => {
  it('keeps its UI address across restarts, and refuses a second start on one home naming the running one', async () => {
    const env = headlessEnv('kept');
    const first = await startScript(START, [], 'baton: open ', env, 120_000);
    const ui = uiOf(first);
    const second = await promisify(execFile)(process.execPath, [START], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`is already in use by baton device (process `);
    expect(second.stderr).toContain(`its UI at http://127.0.0.1:${new URL(ui).port}/`);
    expect(await first.stop()).toBe(0);
    const again = await startScript(START, [], 'baton: open ', env, 120_000);
    expect(uiOf(again)).toBe(ui);
    expect(await again.stop()).toBe(0);
  }, 240_000);

  it('hosts the backend when it creates the account, and joins another home with BATON_INVITE hosting none', async () => {
    const desk = await startScript(START, [], 'baton: open ', headlessEnv('desk'), 120_000);
    const deskClient = await DeviceClient.connect(uiOf(desk));
    try {
      const created = await deskClient.take('createAccount', { deviceName: 'desk' });
      expect(created.backendHome).toMatchObject({ where: 'this-device', hosted: { state: 'running', shared: false } });
      expect(existsSync(join(root, 'desk', 'backend', 'tls-key.pem'))).toBe(true);
      const { invite } = await deskClient.take('createInvite', {});
      const laptop = await startScript(START, [], 'baton: open ', headlessEnv('laptop', { BATON_INVITE: invite }), 120_000);
      const laptopClient = await DeviceClient.connect(uiOf(laptop));
      expect(await laptopClient.call('getStatus', {})).toMatchObject({
        enrolled: true,
        backendUrls: created.backendUrls,
        backendHome: { where: 'device', deviceName: 'desk' },
      });
      expect(existsSync(join(root, 'laptop', 'backend'))).toBe(false);
      laptopClient.close();
      expect(await laptop.stop()).toBe(0);
    } finally {
      deskClient.close();
      await desk.stop();
    }
  }, 240_000);
});
