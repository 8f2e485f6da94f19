/**
 * `baton device` against backends over HTTPS, as real processes: creating an account on a
 * self-signed backend needs its key (`--backend-pin`, pasted in any form), and is refused with the
 * key and the flag to add without it, and the set-up screen's first contact finds the key before
 * anything is sent; a certificate from an authority the system trusts (here the
 * test's own, through NODE_EXTRA_CA_CERTS) needs no pin, but a pin given is still checked; an
 * enrolled device restarted with another pin uses it, and refuses the backend's key, saying so in
 * its status.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackendProcess, type BackendProcess } from '../dev-env/backend-process.ts';
import { DeviceClient, PROJECT_ROOT, startBaton, waitFor } from '../dev-env/process-harness.ts';
import { tempFolders } from '../dev-env/temp-folders.ts';
import { testAuthority } from '../dev-env/test-certificates.ts';

const run = promisify(execFile);
const BATON = join(PROJECT_ROOT, 'bin', 'baton.js');
const folder = tempFolders('baton-device-tls-');
let root: string;
let selfSigned: BackendProcess;
let certified: BackendProcess;
let authorityFile: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-device-tls-world-'));
  const authority = await testAuthority();
  const issued = await authority.issue(['127.0.0.1']);
  authorityFile = join(root, 'authority.pem');
  writeFileSync(authorityFile, authority.cert);
  writeFileSync(join(root, 'cert.pem'), issued.cert);
  writeFileSync(join(root, 'key.pem'), issued.key, { mode: 0o600 });
  [selfSigned, certified] = await Promise.all([
    startBackendProcess(join(root, 'self-signed'), { args: ['--tls', 'self-signed'] }),
    startBackendProcess(join(root, 'certified'), { args: ['--tls-cert', join(root, 'cert.pem'), '--tls-key', join(root, 'key.pem')] }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([selfSigned?.stop(), certified?.stop()]);
  rmSync(root, { recursive: true, force: true });
});

/** `baton device --create-account` that is expected to stop at once: its exit code and stderr. */
async function refusedStart(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stderr: string }> {
  const started = await run(process.execPath, [BATON, 'device', '--profile', folder(), '--create-account', ...args], {
    env: { ...env, BATON_NO_UI_BUILD: '1' },
    timeout: 30_000,
  }).catch((error: { code: number; stderr: string }) => error);
  if (!('code' in started)) throw new Error('the device started');
  return started;
}

/** Starts an enrolling device; its status once it is up. */
async function startedDevice(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const profile = folder();
  const device = await startBaton(['device', '--profile', profile, '--name', 'laptop', ...args], 'ui: ', env);
  const client = await DeviceClient.connect(device.url);
  return { device, client, profile, status: await client.call('getStatus', {}) };
}

describe('a self-signed backend', () => {
  it('is refused at account creation without its pin, naming its key and the flag to add', async () => {
    const refused = await refusedStart(['--backend', selfSigned.url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(selfSigned.fingerprint);
    expect(refused.stderr).toContain(`--backend-pin ${selfSigned.fingerprint}`);
  });

  it('takes its pin as pasted (upper case, colons, spaces), keeps it, and uses it again after a restart', async () => {
    const hex = selfSigned.fingerprint!.slice('sha256:'.length).toUpperCase();
    const pasted = `SHA256:${hex.slice(0, 32).replace(/(..)/g, '$1:')} ${hex.slice(32)}`;
    const first = await startedDevice(['--backend', selfSigned.url, '--create-account', '--backend-pin', pasted]);
    try {
      expect(first.status).toMatchObject({ enrolled: true, backendKey: { pinned: [selfSigned.fingerprint], refused: null } });
      const profile = JSON.parse(readFileSync(join(first.profile, 'profile.json'), 'utf8')) as { backendPins: string[] };
      expect(profile.backendPins).toEqual([selfSigned.fingerprint]);
    } finally {
      first.client.close();
      expect(await first.device.stop()).toBe(0);
    }
    // Restarted with another pin (a re-pin without the UI): the backend's key is refused, and the status says so.
    const other = `sha256:${'e5'.repeat(32)}`;
    const again = await startBaton(['device', '--profile', first.profile, '--backend-pin', other], 'ui: ');
    const client = await DeviceClient.connect(again.url);
    try {
      const status = await waitFor('the refusal in the status', async () => {
        const seen = await client.call('getStatus', {});
        return seen.backendKey?.refused ? seen : undefined;
      });
      expect(status.backendKey).toEqual({
        pinned: [other],
        refused: { url: selfSigned.url, presented: selfSigned.fingerprint, reason: 'mismatch', at: expect.any(Number) },
      });
      // The re-pin through the device API puts it right.
      const repinned = await client.take('pinBackendKeys', { backendPins: [selfSigned.fingerprint!] });
      expect(repinned.backendKey).toEqual({ pinned: [selfSigned.fingerprint], refused: null });
      await waitFor('the backend to answer again', async () =>
        (await client.call('getStatus', {})).reachability?.state === 'reachable' ? true : undefined,
      );
    } finally {
      client.close();
      expect(await again.stop()).toBe(0);
    }
  });
});

describe("the set-up screen's first contact", () => {
  it('finds the self-signed key before anything is sent, and creates the account only with it pinned', async () => {
    const fresh = await startedDevice(['--backend', selfSigned.url]);
    try {
      expect(fresh.status).toMatchObject({ enrolled: false, backendKey: null });
      expect(await fresh.client.call('checkBackendKeys', { backendUrls: [selfSigned.url, certified.url] })).toEqual([
        { url: selfSigned.url, presented: selfSigned.fingerprint, trusted: false, error: null },
        { url: certified.url, presented: certified.fingerprint, trusted: false, error: null },
      ]);
      const unpinned = await fresh.client.call('createAccount', { backendUrls: [selfSigned.url], deviceName: 'laptop' });
      expect(unpinned).toMatchObject({ ok: false, code: 'backend_key_untrusted' });
      const pinned = await fresh.client.take('createAccount', {
        backendUrls: [selfSigned.url],
        deviceName: 'laptop',
        backendPins: [selfSigned.fingerprint!],
      });
      expect(pinned).toMatchObject({ enrolled: true, backendKey: { pinned: [selfSigned.fingerprint], refused: null } });
    } finally {
      fresh.client.close();
      expect(await fresh.device.stop()).toBe(0);
    }
  });
});

describe('a certificate from an authority the system trusts', () => {
  const trusting = { ...process.env, NODE_EXTRA_CA_CERTS: '' };

  it('needs no pin', async () => {
    trusting.NODE_EXTRA_CA_CERTS = authorityFile;
    const started = await startedDevice(['--backend', certified.url, '--create-account'], trusting);
    try {
      expect(started.status).toMatchObject({ enrolled: true, backendKey: { pinned: [], refused: null } });
    } finally {
      started.client.close();
      expect(await started.device.stop()).toBe(0);
    }
  });

  it('is still checked against a pin that is given, and untrusted without the authority', async () => {
    trusting.NODE_EXTRA_CA_CERTS = authorityFile;
    const wrongPin = await refusedStart(['--backend', certified.url, '--backend-pin', `sha256:${'e5'.repeat(32)}`], trusting);
    expect([wrongPin.code, wrongPin.stderr]).toEqual([1, expect.stringContaining(', not the pinned sha256:')]);
    const untrusted = await refusedStart(['--backend', certified.url]);
    expect([untrusted.code, untrusted.stderr]).toEqual([1, expect.stringContaining('no authority this system trusts vouches for')]);
    expect(untrusted.stderr).toContain(certified.fingerprint);
  });
});
