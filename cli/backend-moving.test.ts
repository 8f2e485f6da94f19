/**
 * Moving the backend a device hosts to another machine (or a small server), the documented path end
 * to end (docs/running-a-backend.md, "Moving the backend"): desk hosts the account's backend and the
 * laptop joined it; the backend is backed up while it runs, restored elsewhere and started there with
 * the key it kept; each device is pointed at the new address from Devices → Sync backend (the device
 * API call that screen makes). Desk then hosts nothing, neither says the backend runs on desk, the
 * session made before is there, and a move goes through the new backend.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../dev-env/git-sandbox.ts';
import { announcedKey, DeviceClient, PROJECT_ROOT, startBaton, waitFor, type RunningProcess } from '../dev-env/process-harness.ts';

const run = promisify(execFile);
const BATON = join(PROJECT_ROOT, 'bin', 'baton.js');
let root: string;
let sandbox: GitSandbox;
const running: RunningProcess[] = [];
const clients: DeviceClient[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-backend-moving-'));
  sandbox = createGitSandbox('baton-backend-moving-git-');
});

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(running.map((p) => p.stop(5000)));
  sandbox?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

async function device(args: string[]): Promise<{ process: RunningProcess; client: DeviceClient }> {
  const process = await startBaton(['device', ...args], 'ui: ', { ...sandbox.env, BATON_HEARTBEAT_MS: '1000', BATON_DEMO_TURN_MS: '200' });
  running.push(process);
  const client = await DeviceClient.connect(process.url);
  clients.push(client);
  return { process, client };
}

describe('moving the backend a device hosts', () => {
  it('backs it up, restores it elsewhere with its key, and points every device at it from Devices', async () => {
    const data = join(root, 'desk-backend');
    const repo = sandbox.clone(sandbox.makeOrigin('app'), join(root, 'desk-ws', 'app'));
    const desk = await device([
      '--profile',
      join(root, 'desk'),
      '--backend-data',
      data,
      '--name',
      'desk',
      '--workspace-root',
      join(root, 'desk-ws'),
      '--create-account',
    ]);
    const { invite } = await desk.client.take('createInvite', {});
    const laptop = await device([
      '--profile',
      join(root, 'laptop'),
      '--name',
      'laptop',
      '--workspace-root',
      join(root, 'laptop-ws'),
      '--join',
      invite,
    ]);
    const session = await desk.client.take('startSession', {
      workspace: repo,
      provider: 'demo',
      prompt: 'Look around',
      title: 'Before the move',
    });
    const deskStatus = await desk.client.call('getStatus', {});
    const [oldUrl] = deskStatus.backendUrls;
    const pin = deskStatus.backendKey!.pinned[0]!;

    // Back up the running backend; restore it into an empty folder elsewhere; start it there with the key it kept.
    const archive = join(root, 'baton-backup.tar');
    await run(process.execPath, [BATON, 'backend', 'backup', '--data', data, '--to', archive]);
    const restored = join(root, 'server-data');
    mkdirSync(restored);
    await run('tar', ['-xf', archive, '-C', restored]);
    const server = await startBaton(
      ['backend', '--data', restored, '--host', '127.0.0.1', '--port', '0', '--tls', 'self-signed'],
      'backend: ',
    );
    running.push(server);
    expect(announcedKey(server)).toBe(pin);

    // Devices → Sync backend on each device: the new address, the same key.
    const onLaptop = await laptop.client.take('setBackendUrls', { backendUrls: [server.url] });
    expect(onLaptop).toMatchObject({ backendUrls: [server.url], backendHome: { where: 'elsewhere' } });
    const onDesk = await desk.client.take('setBackendUrls', { backendUrls: [server.url] });
    expect(onDesk).toMatchObject({ backendUrls: [server.url], backendHome: { where: 'elsewhere' } });
    expect(desk.process.stderr()).toContain(`this device no longer hosts the sync backend; its data stays in ${data}`);
    const offline = await run(process.execPath, [
      '-e',
      `fetch(${JSON.stringify(`${oldUrl}/healthz`)}).then(() => process.exit(0), () => process.exit(1))`,
    ]).then(
      () => 'answers',
      () => 'gone',
    );
    expect(offline).toBe('gone');

    // The session made before is there, and a move goes through the new backend.
    expect((await laptop.client.call('listSessions', {})).map((s) => s.id)).toContain(session.id);
    const laptopId = (await laptop.client.call('getStatus', {})).deviceId!;
    await waitFor('the laptop to be a move target', async () => {
      const targets = await desk.client.call('moveEligibility', { sessionId: session.id });
      return targets.find((t) => t.deviceId === laptopId)?.eligible ? true : undefined;
    });
    expect((await desk.client.take('startMove', { sessionId: session.id, targetDeviceId: laptopId })).handoffId).toBeTruthy();
    await waitFor('the session to run on the laptop', async () => {
      const detail = await laptop.client.call('getSession', { sessionId: session.id });
      return detail?.ownerDeviceId === laptopId && detail.generation === 2 ? true : undefined;
    });
  }, 120_000);
});
