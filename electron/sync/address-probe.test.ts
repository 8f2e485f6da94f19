/** Trying backend addresses before a device switches to them, against real backend processes. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBaton, type RunningProcess } from '../../dev-env/process-harness.ts';
import { createAccount } from '../enrollment/account.ts';
import type { Profile } from '../enrollment/profile.ts';
import { syncEnrollmentBackendFactory } from '../enrollment/sync-backend.ts';
import { probeAddresses } from './address-probe.ts';

let root: string;
let ours: RunningProcess;
let another: RunningProcess;
let profile: Profile;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-probe-'));
  const start = (name: string) => startBaton(['backend', '--data', join(root, name), '--port', '0'], 'backend: ');
  [ours, another] = await Promise.all([start('ours'), start('another')]);
  const created = await createAccount(join(root, 'laptop'), [ours.url], 'laptop', { backend: syncEnrollmentBackendFactory });
  if (!created.ok) throw new Error(created.message);
  profile = created.value;
}, 60_000);

afterAll(async () => {
  await Promise.all([ours?.stop(), another?.stop()]);
  rmSync(root, { recursive: true, force: true });
});

describe('trying backend addresses before using them', () => {
  it('takes a list in which one address answers as this account’s backend', async () => {
    expect(await probeAddresses([ours.url], { signer: profile.identity })).toEqual({ ok: true, value: undefined });
    expect(await probeAddresses(['http://127.0.0.1:9', ours.url], { signer: profile.identity })).toEqual({ ok: true, value: undefined });
  });

  it('refuses an address that does not answer, and one of a backend that does not know this device, saying which and why', async () => {
    expect(await probeAddresses(['http://127.0.0.1:9'], { signer: profile.identity })).toEqual({
      ok: false,
      code: 'addresses_unusable',
      message: 'That address does not work for this device: http://127.0.0.1:9: nothing answers at that address (connection refused).',
    });
    const refused = await probeAddresses(['http://127.0.0.1:9', another.url], { signer: profile.identity });
    expect(refused).toMatchObject({ ok: false, code: 'addresses_unusable' });
    expect(!refused.ok && refused.message).toBe(
      `None of those addresses works for this device: http://127.0.0.1:9: nothing answers at that address (connection refused); ${another.url} is a Baton sync backend, but not this account's: it does not know this device.`,
    );
  });
});
