/**
 * `baton backend` over TLS, as real processes: `--tls self-signed` makes a key once and keeps it (a
 * 0600 file in the data folder, backed up with it; one row every PostgreSQL instance shares), and
 * prints its fingerprint before its https address; `--tls-cert/--tls-key` serve the files and read
 * them again on SIGHUP without dropping the listener; plain HTTP beyond this machine warns.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { newTlsKey, selfSignedIdentity } from '../backend/tls/tls-identity.ts';
import { TLS_KEY_FILE } from '../backend/tls/kept-key.ts';
import { startBackendProcess } from '../dev-env/backend-process.ts';
import { tempFolders } from '../dev-env/temp-folders.ts';
import { freshDatabase } from '../dev-env/test-postgres.ts';
import { probeBackendKey } from '../electron/sync/backend-trust.ts';
import { plainHttpWarning, tlsChoice } from './backend-tls.ts';

const folder = tempFolders('baton-cli-tls-');
const BATON = join(import.meta.dirname, '..', 'bin', 'baton.js');
const run = promisify(execFile);

/** The key `url` presents now. */
const keyAt = async (url: string) => (await probeBackendKey(url)).presented;

it('makes a self-signed key once, keeps it 0600 in the data folder, and presents the same key after a restart and a restore', async () => {
  const dir = folder();
  const first = await startBackendProcess(dir, { args: ['--tls', 'self-signed'] });
  expect(first.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(first.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(await keyAt(first.url)).toBe(first.fingerprint);
  expect(statSync(join(dir, TLS_KEY_FILE)).mode & 0o777).toBe(0o600);
  const archive = join(folder(), 'backup.tar');
  await run(process.execPath, [BATON, 'backend', 'backup', '--data', dir, '--to', archive]);
  expect(await first.stop()).toBe(0);

  const again = await startBackendProcess(dir, { args: ['--tls', 'self-signed'] });
  expect(again.fingerprint).toBe(first.fingerprint);
  expect(await keyAt(again.url)).toBe(first.fingerprint);
  expect(await again.stop()).toBe(0);

  const restored = folder();
  await run('tar', ['-xf', archive, '-C', restored]);
  const back = await startBackendProcess(restored, { args: ['--tls', 'self-signed'] });
  expect(back.fingerprint).toBe(first.fingerprint);
  expect(await back.stop()).toBe(0);
});

it('gives every PostgreSQL instance on one database the same self-signed key', async () => {
  const database = await freshDatabase('baton_tls');
  const instances = await Promise.all([0, 1].map(() => startBackendProcess(['--database', database], { args: ['--tls', 'self-signed'] })));
  try {
    const [a, b] = instances;
    expect(a!.fingerprint).toMatch(/^sha256:/);
    expect(b!.fingerprint).toBe(a!.fingerprint);
    expect(await keyAt(b!.url)).toBe(a!.fingerprint);
  } finally {
    for (const instance of instances) expect(await instance.stop()).toBe(0);
  }
});

it('serves --tls-cert/--tls-key, and on SIGHUP the new files from the next connection on, on the same address; an unusable pair is kept out', async () => {
  const dir = folder();
  const tls = join(folder(), 'tls');
  mkdirSync(tls);
  const [cert, key] = [join(tls, 'cert.pem'), join(tls, 'key.pem')];
  const write = (identity: { cert: string; key: string }) => {
    writeFileSync(cert, identity.cert);
    writeFileSync(key, identity.key, { mode: 0o600 });
  };
  const [one, two] = await Promise.all([selfSignedIdentity(newTlsKey(), ['127.0.0.1']), selfSignedIdentity(newTlsKey(), ['127.0.0.1'])]);
  write(one);
  const backend = await startBackendProcess(dir, { args: ['--tls-cert', cert, '--tls-key', key] });
  let stderr = '';
  backend.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    expect(backend.fingerprint).toBe(one.fingerprint);
    expect(await keyAt(backend.url)).toBe(one.fingerprint);
    write(two);
    backend.child.kill('SIGHUP');
    await expect.poll(() => stderr, { timeout: 10_000 }).toContain(`key ${two.fingerprint}`);
    expect(await keyAt(backend.url)).toBe(two.fingerprint);
    // A certificate whose key is another's: refused on one line, the served one kept.
    writeFileSync(key, one.key);
    backend.child.kill('SIGHUP');
    await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/SIGHUP: kept the old certificate: .*not a usable certificate and key/);
    expect(await keyAt(backend.url)).toBe(two.fingerprint);
    expect(backend.child.exitCode).toBeNull();
  } finally {
    expect(await backend.stop()).toBe(0);
  }
});

it('refuses to start on TLS files that do not belong together, and contradicting TLS flags, each on one line', async () => {
  const tls = folder();
  const [one, two] = await Promise.all([selfSignedIdentity(newTlsKey(), []), selfSignedIdentity(newTlsKey(), [])]);
  writeFileSync(join(tls, 'cert.pem'), one.cert);
  writeFileSync(join(tls, 'key.pem'), two.key);
  const refused = await run(process.execPath, [
    BATON,
    'backend',
    '--data',
    folder(),
    '--tls-cert',
    join(tls, 'cert.pem'),
    '--tls-key',
    join(tls, 'key.pem'),
  ]).catch((error: { code: number; stderr: string }) => error);
  expect('code' in refused && [refused.code, refused.stderr.trim().split('\n').length]).toEqual([1, 1]);
  expect('stderr' in refused && refused.stderr).toMatch(/^baton backend: .*not a usable certificate and key/);
  expect(() => tlsChoice({ tls: 'self-signed', 'tls-cert': 'c', 'tls-key': 'k' })).toThrow(/cannot be used with --tls-cert/);
  expect(() => tlsChoice({ 'tls-cert': 'c' })).toThrow(/go together/);
  expect(() => tlsChoice({ tls: 'on' })).toThrow(/self-signed or proxy/);
});

it('warns on one line about plain HTTP beyond this machine, unless a proxy in front terminates TLS', () => {
  expect(plainHttpWarning(tlsChoice({}), '0.0.0.0')).toMatch(/^baton backend: warning: serving plain HTTP on 0\.0\.0\.0: .*--tls proxy/);
  expect(plainHttpWarning(tlsChoice({}), '10.0.0.5')).not.toBeNull();
  expect(plainHttpWarning(tlsChoice({ tls: 'proxy' }), '0.0.0.0')).toBeNull();
  expect(plainHttpWarning(tlsChoice({ tls: 'self-signed' }), '0.0.0.0')).toBeNull();
  for (const host of ['127.0.0.1', 'localhost', '::1']) expect(plainHttpWarning(tlsChoice({}), host)).toBeNull();
});
