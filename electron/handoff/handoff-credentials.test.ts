/**
 * Integration: a workspace whose remotes carry credentials, a password (`http://user:PASSWORD@…`)
 * in one repository and a token (`https://x-access-token:TOKEN@…`) in the other. The remotes do not
 * answer, so the Move is refused at the target's prepare, whose sentence names the remote. Neither
 * secret appears in anything the devices show (readiness, eligibility, sessions, handoffs), in
 * their profile folders, on the backend (rows, WAL, blobs) or in any process's log; the redacted
 * URL is what the user reads.
 */
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceHandle } from '../../dev-env/two-devices.ts';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';

const PASSWORD = 'pa55-Zq8PASSWORD';
const TOKEN = 'ghs_Zq8TOKEN0123456789';
const SECRETS = [PASSWORD, TOKEN];

let world: TwoDevices;

beforeAll(async () => {
  world = await startTwoDevices({ env: { BATON_PREPARE_TIMEOUT_MS: '15000', BATON_DEMO_TURN_MS: '200' } });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function expectNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) expect(text.includes(secret), `${secret} found in ${where}`).toBe(false);
}

/** Everything a device's UI can be told about the session, as one text. */
async function everythingShown(device: DeviceHandle, sessionId: string, targetDeviceId: string): Promise<string> {
  const { client } = device;
  const shown = await Promise.all([
    client.call('listSessions', {}),
    client.call('getSession', { sessionId }),
    client.call('handoffHistory', { sessionId }),
    client.call('listDevices', {}),
    client.call('moveEligibility', { sessionId }),
    client.call('checkReadiness', { sessionId, targetDeviceId }),
  ]);
  return JSON.stringify(shown);
}

describe('credentials in remote URLs', () => {
  it('are never shown, stored or logged: the UI reads the remote redacted, on both devices', async () => {
    const { laptop, desktop, sandbox } = world;
    const workspace = join(laptop.workspaceRoot, 'with-credentials');
    mkdirSync(workspace);
    const api = sandbox.clone(sandbox.makeOrigin('api'), join(workspace, 'api'));
    const web = sandbox.clone(sandbox.makeOrigin('web'), join(workspace, 'web'));
    // Pushed and tracking, then pointed at remotes that carry credentials (and do not answer).
    sandbox.git(api, ['remote', 'set-url', 'origin', `http://builder:${PASSWORD}@127.0.0.1:9/acme/api.git`]);
    sandbox.git(web, ['remote', 'set-url', 'origin', `https://x-access-token:${TOKEN}@127.0.0.1:9/acme/web.git`]);
    const session = await startDemoSession(laptop, workspace, 'Look at both repositories');
    await waitEligible(laptop, session.id, 'desktop');
    const desktopId = await deviceId(desktop);

    const report = await laptop.client.call('checkReadiness', { sessionId: session.id, targetDeviceId: desktopId });
    expect(report.ready).toBe(true);
    expect(report.repos.map((r) => r.remoteUrl).sort()).toEqual([
      'http://builder:***@127.0.0.1:9/acme/api.git',
      'https://x-access-token:***@127.0.0.1:9/acme/web.git',
    ]);

    const moved = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
    if (!moved.ok) throw new Error(`move refused: ${moved.code} ${moved.message}`);
    const ended = (d: { lastHandoff: { id: string; state: string } | null }) =>
      d.lastHandoff?.id === moved.value.handoffId && d.lastHandoff.state === 'cancelled';
    const onLaptop = await waitSession(laptop, session.id, 'the move to be refused at prepare', ended);
    await waitSession(desktop, session.id, 'the desktop to see the refusal', ended);
    const reason = onLaptop.lastHandoff!.cancelReason!;
    expect(reason.code).toBe('target_cannot_open_workspace');
    expect(reason.message).toMatch(/(http:\/\/builder:\*\*\*@|https:\/\/x-access-token:\*\*\*@)127\.0\.0\.1:9\/acme\//);

    // What each UI is told.
    for (const device of [laptop, desktop]) expectNoSecret(await everythingShown(device, session.id, desktopId), `${device.name}'s UI`);
    // Each device's profile folder (session records, handoff progress, keys, settings).
    for (const device of [laptop, desktop]) {
      for (const file of filesUnder(device.profile)) expectNoSecret(readFileSync(file).toString('latin1'), file);
    }
    // The backend: every byte of its data folder (database, WAL, blobs).
    for (const file of filesUnder(world.backendData)) expectNoSecret(readFileSync(file).toString('latin1'), file);
    // Every process's log.
    for (const process of [world.backend, laptop.process, desktop.process]) {
      expectNoSecret(process.stdout() + process.stderr(), `the log of ${process.child.pid}`);
    }
    expect(desktop.process.stderr()).toContain(`handoff ${moved.value.handoffId}: requested → cancelled`);
  }, 120_000);
});
