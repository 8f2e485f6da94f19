/**
 * A corrupt or missing database refuses to start with one clear line and a non-zero exit; an empty
 * folder starts fresh and is marked; a marked folder without its database needs --init. The real
 * `baton backend` command on real SQLite files.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBackendProcess } from '../../dev-env/backend-process.ts';
import { createTestAccount, newId, newTestDevice, opaque } from '../../dev-env/sync-fixtures.ts';
import { DATA_MARKER, DATABASE_FILE } from './data-folder.ts';

const BATON = join(import.meta.dirname, '..', '..', 'bin', 'baton.js');
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-data-folder-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `baton backend` on the folder expecting it to refuse: its exit code and stderr. */
function refusedStart(args: string[] = []): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [BATON, 'backend', '--data', dir, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stderr, stdout });
    }),
  );
}

/** Starts a backend on the folder, makes an account with a session and 400 events, and stops it. */
async function folderWithData(): Promise<string> {
  const backend = await startBackendProcess(dir);
  const device = newTestDevice(backend.url, 'laptop');
  await createTestAccount(device);
  const sessionId = newId();
  expect((await device.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
  for (let i = 0; i < 400; i++) {
    await device.client.call('appendEvent', { params: { sessionId }, body: { generation: 1, sealedBody: opaque(300) } });
  }
  expect(await backend.stop()).toBe(0);
  return device.id;
}

// Each test starts the backend as a process two to four times; on a loaded two-core machine a start can take several
// seconds, so the file allows more than the suite's default per test. No assertion here is about time.
describe('the data folder', { timeout: 120_000 }, () => {
  it('starts an empty folder fresh and marks it as holding a store', async () => {
    const backend = await startBackendProcess(dir);
    expect(existsSync(join(dir, DATABASE_FILE))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, DATA_MARKER), 'utf8'))).toMatchObject({ format: 'baton-backend-data', version: 1 });
    expect(await backend.stop()).toBe(0);
  });

  it('refuses a marked folder whose database is gone, with one line naming --init, and starts afresh with --init', async () => {
    await folderWithData();
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) rmSync(join(dir, file), { force: true });
    const refused = await refusedStart();
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^baton backend: .*baton\.sqlite is missing from a data folder that held a Baton store; .*--init/);
    expect(existsSync(join(dir, DATABASE_FILE))).toBe(false);

    const fresh = await startBackendProcess(dir, { args: ['--init'] });
    const stranger = newTestDevice(fresh.url, 'after init');
    expect((await stranger.client.call('me')).ok).toBe(false);
    expect(await fresh.stop()).toBe(0);
    // Once it holds a store again, it starts without --init.
    expect(await (await startBackendProcess(dir)).stop()).toBe(0);
  });

  it('refuses a database with a smashed inner page, with one line and exit code 1', async () => {
    await folderWithData();
    const file = join(dir, DATABASE_FILE);
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const inner = db.prepare("SELECT pageno FROM dbstat WHERE name = 'session_events' AND pagetype = 'internal'").get() as {
      pageno: number;
    };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (inner.pageno - 1) * pageSize);
    closeSync(fd);

    const refused = await refusedStart();
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /^baton backend: .*baton\.sqlite is corrupt \((database disk image is malformed|.*page.*)\); restore it from a backup/,
    );
    expect((await refusedStart(['--init'])).code).toBe(1);
  });

  it('refuses a database file that is not a database at all', async () => {
    writeFileSync(join(dir, DATABASE_FILE), opaque(8192));
    const refused = await refusedStart();
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/^baton backend: .*is corrupt \(file is not a database\)/)]);
  });
});
