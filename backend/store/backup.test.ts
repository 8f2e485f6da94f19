/**
 * `baton backend backup` of a running backend in the middle of traffic, restored as the README says
 * (`tar -xf FILE -C NEW`, then `baton backend --data NEW`): every device, session, event and blob
 * acknowledged before the backup began is there. Real processes, real SQLite, the real tar.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBackendProcess, type BackendProcess } from '../../dev-env/backend-process.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { createBackendClient } from '../../electron/sync/backend-client.ts';

const run = promisify(execFile);
const BATON = join(import.meta.dirname, '..', '..', 'bin', 'baton.js');
let root: string;
let live: BackendProcess;
let laptop: TestDevice;
let desk: TestDevice;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-backup-'));
  live = await startBackendProcess(join(root, 'live'));
  laptop = newTestDevice(live.url, 'laptop');
  desk = newTestDevice(live.url, 'desk');
  await createTestAccount(laptop);
  await joinTestDevice(laptop, desk);
});

afterAll(async () => {
  await live.stop();
  rmSync(root, { recursive: true, force: true });
});

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

it('backs up a running backend mid-traffic into one archive that restores into a fresh folder with all acknowledged data', async () => {
  const sessionId = newId();
  expect((await laptop.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
  const acked: number[] = [];
  const blobs: Buffer[] = [];
  let stop = false;
  const traffic = (async () => {
    while (!stop) {
      const event = await laptop.client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque(200) } });
      if (event.ok) acked.push(event.value.event.seq);
      const body = Buffer.from(opaque(20_000));
      if ((await desk.client.putBlob(sha(body), body)).ok) blobs.push(body);
    }
  })();
  await expect.poll(() => acked.length, { timeout: 10_000 }).toBeGreaterThan(20);

  const ackedBefore = acked.length;
  const blobsBefore = blobs.length;
  const archive = join(root, 'baton-backup.tar');
  const made = await run(process.execPath, [BATON, 'backend', 'backup', '--data', join(root, 'live'), '--to', archive]);
  expect(made.stdout).toMatch(/^backup: .*baton-backup\.tar \(\d+ blobs, [\d.]+ MiB\)\n$/);
  await expect.poll(() => acked.length, { timeout: 10_000 }).toBeGreaterThan(ackedBefore + 5);
  stop = true;
  await traffic;

  const restoredDir = join(root, 'restored');
  mkdirSync(restoredDir);
  await run('tar', ['-xf', archive, '-C', restoredDir]);
  const restored = await startBackendProcess(restoredDir);
  try {
    const again = (device: TestDevice) => createBackendClient({ baseUrl: restored.url, signer: device.signer });
    const [laptopAgain, deskAgain] = [again(laptop), again(desk)];
    const devices = await laptopAgain.call('listDevices');
    expect(devices.ok && devices.value.devices.map((d) => [d.name, d.status])).toEqual([
      ['laptop', 'enrolled'],
      ['desk', 'enrolled'],
    ]);
    const events = await deskAgain.call('listEvents', { params: { sessionId }, query: { limit: 1000 } });
    const seqs = events.ok ? events.value.events.map((e) => e.seq) : [];
    expect(seqs.length).toBeGreaterThanOrEqual(ackedBefore);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    for (const body of blobs.slice(0, blobsBefore)) {
      const read = await deskAgain.getBlob(sha(body));
      expect(read.ok && sha(Buffer.from(read.value))).toBe(sha(body));
    }
    // The restored store takes new writes where the snapshot left off.
    const next = await laptopAgain.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque() } });
    expect(next.ok && next.value.event.seq).toBe(seqs.length + 1);
  } finally {
    expect(await restored.stop()).toBe(0);
  }
});

it('refuses to back up a folder with no store, saying so on one line', async () => {
  const empty = join(root, 'empty');
  mkdirSync(empty);
  const refused = await run(process.execPath, [BATON, 'backend', 'backup', '--data', empty, '--to', join(root, 'x.tar')]).catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect('code' in refused && [refused.code, refused.stderr]).toEqual([
    1,
    expect.stringMatching(/^baton backend backup: .*does not exist/),
  ]);
});
