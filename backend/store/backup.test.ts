/**
 * `baton backend backup` of a running backend in the middle of traffic, restored as the README says
 * (`tar -xf FILE -C NEW`, then `baton backend --data NEW`): every device, session, event and blob
 * acknowledged before the backup began is there. Real processes, real SQLite, the real tar.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBackendProcess, type BackendProcess } from '../../dev-env/backend-process.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { createBackendClient } from '../../electron/sync/backend-client.ts';
import { startBackend } from '../backend.ts';
import { DEFAULT_RETENTION } from '../retention.ts';
import { backupDataFolder } from './backup.ts';
import { DATABASE_FILE } from './data-folder.ts';

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

it('holds the removal of blob bodies off while it runs, archives only the blobs its snapshot names, and lifts its hold', async () => {
  const dataDir = join(root, 'held');
  let now = Date.now();
  const backend = await startBackend({ dataDir, clock: () => now, retention: { intervalMs: 24 * 3_600_000 } });
  try {
    const device = newTestDevice(backend.url, 'laptop', () => now);
    await createTestAccount(device);
    const bodies = [Buffer.from(opaque(100)), Buffer.from(opaque(100))];
    for (const body of bodies) expect((await device.client.putBlob(sha(body), body)).ok).toBe(true);
    now += DEFAULT_RETENTION.unnamedGraceMs + 1;
    const files = () => bodies.filter((body) => existsSync(join(dataDir, 'blobs', sha(body)))).length;
    // Another backup in progress: the records go, the bodies stay until it ends.
    const db = new Database(join(dataDir, DATABASE_FILE));
    db.prepare('INSERT INTO backup_holds (id, until) VALUES (?, ?)').run('other', now + 60_000);
    await backend.collect();
    expect([(await device.client.getBlob(sha(bodies[0]!))).ok, files()]).toEqual([false, 2]);
    const archive = join(root, 'held.tar');
    expect((await backupDataFolder(dataDir, archive)).ok).toBe(true);
    const listed = (await run('tar', ['-tf', archive])).stdout;
    expect(listed).not.toContain('blobs/');
    const restored = join(root, 'held-restored');
    mkdirSync(restored);
    await run('tar', ['-xf', archive, '-C', restored]);
    const copy = new Database(join(restored, DATABASE_FILE), { readonly: true });
    expect(copy.prepare('SELECT count(*) FROM backup_holds').pluck().get()).toBe(0);
    copy.close();
    // Its own hold lifted, the other's kept.
    expect(db.prepare('SELECT id FROM backup_holds').pluck().all()).toEqual(['other']);
    db.prepare('DELETE FROM backup_holds').run();
    db.close();
    await backend.collect();
    expect(files()).toBe(0);
  } finally {
    await backend.close();
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
